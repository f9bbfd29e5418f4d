"""The ReAct kernel shared by the edge and the cloud: transport-free, every step a ReactStep."""

from react_kernel.steps import from_struct, new_act_id, step_to_json, to_struct

__all__ = ["from_struct", "new_act_id", "step_to_json", "to_struct"]
