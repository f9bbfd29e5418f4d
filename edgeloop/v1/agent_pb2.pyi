import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StepType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STEP_TYPE_UNSPECIFIED: _ClassVar[StepType]
    STEP_TYPE_THOUGHT: _ClassVar[StepType]
    STEP_TYPE_ACTION: _ClassVar[StepType]
    STEP_TYPE_OBSERVATION: _ClassVar[StepType]
    STEP_TYPE_FINAL_ANSWER: _ClassVar[StepType]
    STEP_TYPE_ERROR: _ClassVar[StepType]
    STEP_TYPE_APPROVAL_REQUEST: _ClassVar[StepType]
    STEP_TYPE_CLARIFICATION: _ClassVar[StepType]

class Origin(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ORIGIN_UNSPECIFIED: _ClassVar[Origin]
    ORIGIN_EDGE: _ClassVar[Origin]
    ORIGIN_CLOUD: _ClassVar[Origin]

class ObservationStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBSERVATION_STATUS_UNSPECIFIED: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_OK: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_ERROR: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_TIMEOUT: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_REJECTED: _ClassVar[ObservationStatus]

class SessionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SESSION_STATE_UNSPECIFIED: _ClassVar[SessionState]
    SESSION_STATE_SUBMITTED: _ClassVar[SessionState]
    SESSION_STATE_WORKING: _ClassVar[SessionState]
    SESSION_STATE_INPUT_REQUIRED: _ClassVar[SessionState]
    SESSION_STATE_COMPLETED: _ClassVar[SessionState]
    SESSION_STATE_FAILED: _ClassVar[SessionState]
    SESSION_STATE_CANCELED: _ClassVar[SessionState]
    SESSION_STATE_REJECTED: _ClassVar[SessionState]

class StopReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STOP_REASON_UNSPECIFIED: _ClassVar[StopReason]
    STOP_REASON_FINAL_ANSWER: _ClassVar[StopReason]
    STOP_REASON_MAX_STEPS: _ClassVar[StopReason]
    STOP_REASON_REPEATED_ACTION: _ClassVar[StopReason]
    STOP_REASON_STALLED: _ClassVar[StopReason]
    STOP_REASON_TIME_BUDGET: _ClassVar[StopReason]
    STOP_REASON_DENIED: _ClassVar[StopReason]
    STOP_REASON_CANCELED: _ClassVar[StopReason]
    STOP_REASON_ERROR: _ClassVar[StopReason]
    STOP_REASON_REFUSED: _ClassVar[StopReason]

class DeviceEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DEVICE_EVENT_KIND_UNSPECIFIED: _ClassVar[DeviceEventKind]
    DEVICE_EVENT_KIND_TIMER_FIRED: _ClassVar[DeviceEventKind]
    DEVICE_EVENT_KIND_TIMER_MISSED: _ClassVar[DeviceEventKind]
    DEVICE_EVENT_KIND_APPROVAL_WAITING: _ClassVar[DeviceEventKind]
    DEVICE_EVENT_KIND_PENDING_RESOLVED: _ClassVar[DeviceEventKind]
    DEVICE_EVENT_KIND_SYNC_DONE: _ClassVar[DeviceEventKind]
    DEVICE_EVENT_KIND_TIMER_DISMISSED: _ClassVar[DeviceEventKind]
    DEVICE_EVENT_KIND_TIMER_SNOOZED: _ClassVar[DeviceEventKind]

class TimerAnswer(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMER_ANSWER_UNSPECIFIED: _ClassVar[TimerAnswer]
    TIMER_ANSWER_DISMISS: _ClassVar[TimerAnswer]
    TIMER_ANSWER_SNOOZE: _ClassVar[TimerAnswer]
STEP_TYPE_UNSPECIFIED: StepType
STEP_TYPE_THOUGHT: StepType
STEP_TYPE_ACTION: StepType
STEP_TYPE_OBSERVATION: StepType
STEP_TYPE_FINAL_ANSWER: StepType
STEP_TYPE_ERROR: StepType
STEP_TYPE_APPROVAL_REQUEST: StepType
STEP_TYPE_CLARIFICATION: StepType
ORIGIN_UNSPECIFIED: Origin
ORIGIN_EDGE: Origin
ORIGIN_CLOUD: Origin
OBSERVATION_STATUS_UNSPECIFIED: ObservationStatus
OBSERVATION_STATUS_OK: ObservationStatus
OBSERVATION_STATUS_ERROR: ObservationStatus
OBSERVATION_STATUS_TIMEOUT: ObservationStatus
OBSERVATION_STATUS_REJECTED: ObservationStatus
SESSION_STATE_UNSPECIFIED: SessionState
SESSION_STATE_SUBMITTED: SessionState
SESSION_STATE_WORKING: SessionState
SESSION_STATE_INPUT_REQUIRED: SessionState
SESSION_STATE_COMPLETED: SessionState
SESSION_STATE_FAILED: SessionState
SESSION_STATE_CANCELED: SessionState
SESSION_STATE_REJECTED: SessionState
STOP_REASON_UNSPECIFIED: StopReason
STOP_REASON_FINAL_ANSWER: StopReason
STOP_REASON_MAX_STEPS: StopReason
STOP_REASON_REPEATED_ACTION: StopReason
STOP_REASON_STALLED: StopReason
STOP_REASON_TIME_BUDGET: StopReason
STOP_REASON_DENIED: StopReason
STOP_REASON_CANCELED: StopReason
STOP_REASON_ERROR: StopReason
STOP_REASON_REFUSED: StopReason
DEVICE_EVENT_KIND_UNSPECIFIED: DeviceEventKind
DEVICE_EVENT_KIND_TIMER_FIRED: DeviceEventKind
DEVICE_EVENT_KIND_TIMER_MISSED: DeviceEventKind
DEVICE_EVENT_KIND_APPROVAL_WAITING: DeviceEventKind
DEVICE_EVENT_KIND_PENDING_RESOLVED: DeviceEventKind
DEVICE_EVENT_KIND_SYNC_DONE: DeviceEventKind
DEVICE_EVENT_KIND_TIMER_DISMISSED: DeviceEventKind
DEVICE_EVENT_KIND_TIMER_SNOOZED: DeviceEventKind
TIMER_ANSWER_UNSPECIFIED: TimerAnswer
TIMER_ANSWER_DISMISS: TimerAnswer
TIMER_ANSWER_SNOOZE: TimerAnswer

class ReactStep(_message.Message):
    __slots__ = ("session_id", "turn_id", "step_type", "content", "metadata", "act_id", "tool", "arguments", "status", "origin", "created_at", "latency_ms", "trace_id", "step_index", "requires_approval", "stop_reason", "receipt_id", "executor", "observation", "model", "token_usage", "idempotency_key", "missing_argument", "argument_schema", "answers_act_id")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_ID_FIELD_NUMBER: _ClassVar[int]
    EXECUTOR_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TOKEN_USAGE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    MISSING_ARGUMENT_FIELD_NUMBER: _ClassVar[int]
    ARGUMENT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_ACT_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    turn_id: int
    step_type: StepType
    content: str
    metadata: _containers.ScalarMap[str, str]
    act_id: str
    tool: str
    arguments: _struct_pb2.Struct
    status: ObservationStatus
    origin: Origin
    created_at: _timestamp_pb2.Timestamp
    latency_ms: float
    trace_id: str
    step_index: int
    requires_approval: bool
    stop_reason: StopReason
    receipt_id: str
    executor: Origin
    observation: _struct_pb2.Struct
    model: str
    token_usage: TokenUsage
    idempotency_key: str
    missing_argument: str
    argument_schema: _struct_pb2.Struct
    answers_act_id: str
    def __init__(self, session_id: _Optional[str] = ..., turn_id: _Optional[int] = ..., step_type: _Optional[_Union[StepType, str]] = ..., content: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., act_id: _Optional[str] = ..., tool: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., status: _Optional[_Union[ObservationStatus, str]] = ..., origin: _Optional[_Union[Origin, str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., latency_ms: _Optional[float] = ..., trace_id: _Optional[str] = ..., step_index: _Optional[int] = ..., requires_approval: _Optional[bool] = ..., stop_reason: _Optional[_Union[StopReason, str]] = ..., receipt_id: _Optional[str] = ..., executor: _Optional[_Union[Origin, str]] = ..., observation: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., model: _Optional[str] = ..., token_usage: _Optional[_Union[TokenUsage, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., missing_argument: _Optional[str] = ..., argument_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., answers_act_id: _Optional[str] = ...) -> None: ...

class TokenUsage(_message.Message):
    __slots__ = ("prompt_tokens", "completion_tokens")
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    prompt_tokens: int
    completion_tokens: int
    def __init__(self, prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ...) -> None: ...

class DecisionReceipt(_message.Message):
    __slots__ = ("receipt_id", "session_id", "query", "answer", "evidence", "reasoning", "model", "token_usage", "created_at", "digest")
    RECEIPT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TOKEN_USAGE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    receipt_id: str
    session_id: str
    query: str
    answer: str
    evidence: _containers.RepeatedCompositeFieldContainer[Evidence]
    reasoning: _containers.RepeatedScalarFieldContainer[str]
    model: str
    token_usage: TokenUsage
    created_at: _timestamp_pb2.Timestamp
    digest: str
    def __init__(self, receipt_id: _Optional[str] = ..., session_id: _Optional[str] = ..., query: _Optional[str] = ..., answer: _Optional[str] = ..., evidence: _Optional[_Iterable[_Union[Evidence, _Mapping]]] = ..., reasoning: _Optional[_Iterable[str]] = ..., model: _Optional[str] = ..., token_usage: _Optional[_Union[TokenUsage, _Mapping]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., digest: _Optional[str] = ...) -> None: ...

class Evidence(_message.Message):
    __slots__ = ("act_id", "tool", "arguments", "output_sha256")
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_SHA256_FIELD_NUMBER: _ClassVar[int]
    act_id: str
    tool: str
    arguments: _struct_pb2.Struct
    output_sha256: str
    def __init__(self, act_id: _Optional[str] = ..., tool: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., output_sha256: _Optional[str] = ...) -> None: ...

class ReasonRequest(_message.Message):
    __slots__ = ("session_id", "query", "device_id", "history", "device_tools", "max_steps", "turn_id", "declared_tools", "proposed_calls")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TOOLS_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    DECLARED_TOOLS_FIELD_NUMBER: _ClassVar[int]
    PROPOSED_CALLS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    query: str
    device_id: str
    history: _containers.RepeatedCompositeFieldContainer[ReactStep]
    device_tools: _containers.RepeatedScalarFieldContainer[str]
    max_steps: int
    turn_id: int
    declared_tools: _containers.RepeatedCompositeFieldContainer[ToolDeclaration]
    proposed_calls: _containers.RepeatedCompositeFieldContainer[ProposedCall]
    def __init__(self, session_id: _Optional[str] = ..., query: _Optional[str] = ..., device_id: _Optional[str] = ..., history: _Optional[_Iterable[_Union[ReactStep, _Mapping]]] = ..., device_tools: _Optional[_Iterable[str]] = ..., max_steps: _Optional[int] = ..., turn_id: _Optional[int] = ..., declared_tools: _Optional[_Iterable[_Union[ToolDeclaration, _Mapping]]] = ..., proposed_calls: _Optional[_Iterable[_Union[ProposedCall, _Mapping]]] = ...) -> None: ...

class ToolDeclaration(_message.Message):
    __slots__ = ("name", "description", "input_schema", "observation_schema", "side_effects", "requires_approval", "examples")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    SIDE_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    input_schema: _struct_pb2.Struct
    observation_schema: _struct_pb2.Struct
    side_effects: bool
    requires_approval: bool
    examples: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., input_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., observation_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., side_effects: _Optional[bool] = ..., requires_approval: _Optional[bool] = ..., examples: _Optional[_Iterable[str]] = ...) -> None: ...

class ProposedCall(_message.Message):
    __slots__ = ("tool", "arguments", "span", "confidence")
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    SPAN_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    tool: str
    arguments: _struct_pb2.Struct
    span: str
    confidence: float
    def __init__(self, tool: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., span: _Optional[str] = ..., confidence: _Optional[float] = ...) -> None: ...

class ReasonResponse(_message.Message):
    __slots__ = ("step",)
    STEP_FIELD_NUMBER: _ClassVar[int]
    step: ReactStep
    def __init__(self, step: _Optional[_Union[ReactStep, _Mapping]] = ...) -> None: ...

class ConverseRequest(_message.Message):
    __slots__ = ("start", "observation", "cancel")
    START_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    CANCEL_FIELD_NUMBER: _ClassVar[int]
    start: ReasonRequest
    observation: ReactStep
    cancel: CancelSession
    def __init__(self, start: _Optional[_Union[ReasonRequest, _Mapping]] = ..., observation: _Optional[_Union[ReactStep, _Mapping]] = ..., cancel: _Optional[_Union[CancelSession, _Mapping]] = ...) -> None: ...

class CancelSession(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class ConverseResponse(_message.Message):
    __slots__ = ("step", "device_action", "receipt")
    STEP_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ACTION_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    step: ReactStep
    device_action: ReactStep
    receipt: DecisionReceipt
    def __init__(self, step: _Optional[_Union[ReactStep, _Mapping]] = ..., device_action: _Optional[_Union[ReactStep, _Mapping]] = ..., receipt: _Optional[_Union[DecisionReceipt, _Mapping]] = ...) -> None: ...

class ListToolsRequest(_message.Message):
    __slots__ = ("device_tools", "declared_tools")
    DEVICE_TOOLS_FIELD_NUMBER: _ClassVar[int]
    DECLARED_TOOLS_FIELD_NUMBER: _ClassVar[int]
    device_tools: _containers.RepeatedScalarFieldContainer[str]
    declared_tools: _containers.RepeatedCompositeFieldContainer[ToolDeclaration]
    def __init__(self, device_tools: _Optional[_Iterable[str]] = ..., declared_tools: _Optional[_Iterable[_Union[ToolDeclaration, _Mapping]]] = ...) -> None: ...

class ToolSchema(_message.Message):
    __slots__ = ("name", "description", "input_schema", "observation_schema", "executor", "side_effects", "requires_approval", "declared")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    EXECUTOR_FIELD_NUMBER: _ClassVar[int]
    SIDE_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    DECLARED_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    input_schema: _struct_pb2.Struct
    observation_schema: _struct_pb2.Struct
    executor: Origin
    side_effects: bool
    requires_approval: bool
    declared: bool
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., input_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., observation_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., executor: _Optional[_Union[Origin, str]] = ..., side_effects: _Optional[bool] = ..., requires_approval: _Optional[bool] = ..., declared: _Optional[bool] = ...) -> None: ...

class ListToolsResponse(_message.Message):
    __slots__ = ("tools",)
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    tools: _containers.RepeatedCompositeFieldContainer[ToolSchema]
    def __init__(self, tools: _Optional[_Iterable[_Union[ToolSchema, _Mapping]]] = ...) -> None: ...

class StateVector(_message.Message):
    __slots__ = ("vector",)
    VECTOR_FIELD_NUMBER: _ClassVar[int]
    vector: bytes
    def __init__(self, vector: _Optional[bytes] = ...) -> None: ...

class UpdateChunk(_message.Message):
    __slots__ = ("update_id", "index", "total", "data", "sha256")
    UPDATE_ID_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    update_id: str
    index: int
    total: int
    data: bytes
    sha256: str
    def __init__(self, update_id: _Optional[str] = ..., index: _Optional[int] = ..., total: _Optional[int] = ..., data: _Optional[bytes] = ..., sha256: _Optional[str] = ...) -> None: ...

class SyncRequest(_message.Message):
    __slots__ = ("hello", "state_vector", "update", "done")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    STATE_VECTOR_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    hello: SyncHello
    state_vector: StateVector
    update: UpdateChunk
    done: SyncDone
    def __init__(self, hello: _Optional[_Union[SyncHello, _Mapping]] = ..., state_vector: _Optional[_Union[StateVector, _Mapping]] = ..., update: _Optional[_Union[UpdateChunk, _Mapping]] = ..., done: _Optional[_Union[SyncDone, _Mapping]] = ...) -> None: ...

class SyncHello(_message.Message):
    __slots__ = ("device_id", "user_id")
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    device_id: str
    user_id: str
    def __init__(self, device_id: _Optional[str] = ..., user_id: _Optional[str] = ...) -> None: ...

class SyncDone(_message.Message):
    __slots__ = ("round",)
    ROUND_FIELD_NUMBER: _ClassVar[int]
    round: int
    def __init__(self, round: _Optional[int] = ...) -> None: ...

class SyncResponse(_message.Message):
    __slots__ = ("state_vector", "update", "done", "complete")
    STATE_VECTOR_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    state_vector: StateVector
    update: UpdateChunk
    done: SyncDone
    complete: SyncComplete
    def __init__(self, state_vector: _Optional[_Union[StateVector, _Mapping]] = ..., update: _Optional[_Union[UpdateChunk, _Mapping]] = ..., done: _Optional[_Union[SyncDone, _Mapping]] = ..., complete: _Optional[_Union[SyncComplete, _Mapping]] = ...) -> None: ...

class SyncComplete(_message.Message):
    __slots__ = ("rounds", "bytes_received", "bytes_sent")
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    BYTES_RECEIVED_FIELD_NUMBER: _ClassVar[int]
    BYTES_SENT_FIELD_NUMBER: _ClassVar[int]
    rounds: int
    bytes_received: int
    bytes_sent: int
    def __init__(self, rounds: _Optional[int] = ..., bytes_received: _Optional[int] = ..., bytes_sent: _Optional[int] = ...) -> None: ...

class AskRequest(_message.Message):
    __slots__ = ("query", "session_id")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    query: str
    session_id: str
    def __init__(self, query: _Optional[str] = ..., session_id: _Optional[str] = ...) -> None: ...

class AskResponse(_message.Message):
    __slots__ = ("step",)
    STEP_FIELD_NUMBER: _ClassVar[int]
    step: ReactStep
    def __init__(self, step: _Optional[_Union[ReactStep, _Mapping]] = ...) -> None: ...

class ApproveRequest(_message.Message):
    __slots__ = ("session_id", "act_id", "approved", "reason")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    act_id: str
    approved: bool
    reason: str
    def __init__(self, session_id: _Optional[str] = ..., act_id: _Optional[str] = ..., approved: _Optional[bool] = ..., reason: _Optional[str] = ...) -> None: ...

class ApproveResponse(_message.Message):
    __slots__ = ("steps",)
    STEPS_FIELD_NUMBER: _ClassVar[int]
    steps: _containers.RepeatedCompositeFieldContainer[ReactStep]
    def __init__(self, steps: _Optional[_Iterable[_Union[ReactStep, _Mapping]]] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ("session_id", "state", "steps", "receipt")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    state: SessionState
    steps: _containers.RepeatedCompositeFieldContainer[ReactStep]
    receipt: DecisionReceipt
    def __init__(self, session_id: _Optional[str] = ..., state: _Optional[_Union[SessionState, str]] = ..., steps: _Optional[_Iterable[_Union[ReactStep, _Mapping]]] = ..., receipt: _Optional[_Union[DecisionReceipt, _Mapping]] = ...) -> None: ...

class WatchEventsRequest(_message.Message):
    __slots__ = ("include_ringing",)
    INCLUDE_RINGING_FIELD_NUMBER: _ClassVar[int]
    include_ringing: bool
    def __init__(self, include_ringing: _Optional[bool] = ...) -> None: ...

class DeviceEvent(_message.Message):
    __slots__ = ("kind", "text", "at", "timer_id", "label", "due_at", "session_id", "act_id", "pending_id", "details")
    class DetailsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    TIMER_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    DUE_AT_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    PENDING_ID_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    kind: DeviceEventKind
    text: str
    at: _timestamp_pb2.Timestamp
    timer_id: str
    label: str
    due_at: _timestamp_pb2.Timestamp
    session_id: str
    act_id: str
    pending_id: str
    details: _containers.ScalarMap[str, str]
    def __init__(self, kind: _Optional[_Union[DeviceEventKind, str]] = ..., text: _Optional[str] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., timer_id: _Optional[str] = ..., label: _Optional[str] = ..., due_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., session_id: _Optional[str] = ..., act_id: _Optional[str] = ..., pending_id: _Optional[str] = ..., details: _Optional[_Mapping[str, str]] = ...) -> None: ...

class WatchEventsResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: DeviceEvent
    def __init__(self, event: _Optional[_Union[DeviceEvent, _Mapping]] = ...) -> None: ...

class SettleTimerRequest(_message.Message):
    __slots__ = ("timer_id", "answer", "snooze_seconds")
    TIMER_ID_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    SNOOZE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    timer_id: str
    answer: TimerAnswer
    snooze_seconds: int
    def __init__(self, timer_id: _Optional[str] = ..., answer: _Optional[_Union[TimerAnswer, str]] = ..., snooze_seconds: _Optional[int] = ...) -> None: ...

class SettleTimerResponse(_message.Message):
    __slots__ = ("text", "snoozed_timer_id")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SNOOZED_TIMER_ID_FIELD_NUMBER: _ClassVar[int]
    text: str
    snoozed_timer_id: str
    def __init__(self, text: _Optional[str] = ..., snoozed_timer_id: _Optional[str] = ...) -> None: ...
