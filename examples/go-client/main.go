// Command edgeloop-client is a Go client of an edgeloop cloud, built from
// proto/edgeloop/v1/agent.proto with Debian's Go, gRPC and protobuf packages.
//
//	edgeloop-client [flags] health            grpc.health.v1 for "" and each service
//	edgeloop-client [flags] tools             ListTools: every tool, its executor
//	edgeloop-client [flags] reason "QUERY"    Reason: cloud tools only, steps streamed
//	edgeloop-client [flags] converse "QUERY"  Converse: runs the cloud's device actions
//	                                          (device_control) on a simulated home
//
// Flags: -cloud HOST:PORT (127.0.0.1:50051), -token TOKEN, -device-id ID (the token's
// device), -json (each message as protobuf JSON, one per line). Exit codes: 0 done,
// 2 usage, 3 an RPC failed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	edgeloopv1 "github.com/edgeloop/edgeloop/gen/go/edgeloop/v1"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

type client struct {
	conn     *grpc.ClientConn
	cloud    edgeloopv1.CloudReasonerServiceClient
	token    string
	deviceID string
	asJSON   bool
}

// ctx is a call's context: a deadline (always) and the token and device id as metadata.
func (c *client) ctx(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	pairs := []string{"x-device-id", c.deviceID}
	if c.token != "" {
		pairs = append(pairs, "authorization", "Bearer "+c.token)
	}
	return metadata.AppendToOutgoingContext(ctx, pairs...), cancel
}

func (c *client) print(kind string, m proto.Message, human string) {
	if c.asJSON {
		body, _ := protojson.Marshal(m)
		fmt.Printf("{%q: %s}\n", kind, body)
		return
	}
	fmt.Println(human)
}

func (c *client) printStep(kind string, s *edgeloopv1.ReactStep) {
	name := strings.TrimPrefix(s.GetStepType().String(), "STEP_TYPE_")
	c.print(kind, s, fmt.Sprintf("%-12s %s", name, s.GetContent()))
}

func (c *client) health() error {
	h := healthpb.NewHealthClient(c.conn)
	for _, service := range []string{"", "edgeloop.v1.CloudReasonerService"} {
		ctx, cancel := c.ctx(5 * time.Second)
		reply, err := h.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		cancel()
		if err != nil {
			return err
		}
		// Debian's health stubs are of the older protobuf API: printed by hand.
		if c.asJSON {
			fmt.Printf("{\"health\": {\"service\": %q, \"status\": %q}}\n", service, reply.GetStatus().String())
		} else {
			fmt.Printf("%-34q %s\n", service, reply.GetStatus())
		}
	}
	return nil
}

func (c *client) tools() error {
	ctx, cancel := c.ctx(10 * time.Second)
	defer cancel()
	reply, err := c.cloud.ListTools(ctx, &edgeloopv1.ListToolsRequest{})
	if err != nil {
		return err
	}
	for _, t := range reply.GetTools() {
		c.print("tool", t, fmt.Sprintf("%-16s %s", t.GetName(), t.GetExecutor()))
	}
	return nil
}

func newSessionID() string {
	return fmt.Sprintf("go-%d", time.Now().UnixNano())
}

func (c *client) reason(query string) error {
	ctx, cancel := c.ctx(60 * time.Second)
	defer cancel()
	stream, err := c.cloud.Reason(ctx, &edgeloopv1.ReasonRequest{
		SessionId: newSessionID(), Query: query, DeviceId: c.deviceID,
	})
	if err != nil {
		return err
	}
	for {
		reply, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		c.printStep("step", reply.GetStep())
	}
}

// runDeviceControl is the simulated home: it "switches" the device and answers with the
// fields device_control's observation schema has (from ListTools).
func runDeviceControl(args map[string]interface{}, schema *structpb.Struct) map[string]interface{} {
	state := fmt.Sprint(args["action"])
	if state == "set" {
		state = fmt.Sprint(args["value"])
	}
	out := map[string]interface{}{"device": args["device"], "state": state}
	props := schema.GetFields()["properties"].GetStructValue().GetFields()
	if _, ok := props["room"]; ok {
		out["room"] = args["room"]
	}
	return out
}

func (c *client) observationSchemas() (map[string]*structpb.Struct, error) {
	ctx, cancel := c.ctx(10 * time.Second)
	defer cancel()
	reply, err := c.cloud.ListTools(ctx, &edgeloopv1.ListToolsRequest{DeviceTools: []string{"device_control"}})
	if err != nil {
		return nil, err
	}
	out := map[string]*structpb.Struct{}
	for _, t := range reply.GetTools() {
		out[t.GetName()] = t.GetObservationSchema()
	}
	return out, nil
}

// observe answers one device action with an OBSERVATION of the same act id.
func observe(action *edgeloopv1.ReactStep, schemas map[string]*structpb.Struct) *edgeloopv1.ReactStep {
	obs := &edgeloopv1.ReactStep{
		SessionId: action.GetSessionId(), TurnId: action.GetTurnId(), ActId: action.GetActId(),
		StepType: edgeloopv1.StepType_STEP_TYPE_OBSERVATION, Tool: action.GetTool(),
		Origin: edgeloopv1.Origin_ORIGIN_EDGE, Status: edgeloopv1.ObservationStatus_OBSERVATION_STATUS_OK,
	}
	var output map[string]interface{}
	if action.GetTool() == "device_control" {
		output = runDeviceControl(action.GetArguments().AsMap(), schemas["device_control"])
	} else {
		obs.Status = edgeloopv1.ObservationStatus_OBSERVATION_STATUS_ERROR
		output = map[string]interface{}{"error": "this device does not run " + action.GetTool()}
	}
	if s, err := structpb.NewStruct(output); err == nil {
		obs.Observation = s
	}
	return obs
}

func (c *client) converse(query string) error {
	schemas, err := c.observationSchemas()
	if err != nil {
		return err
	}
	ctx, cancel := c.ctx(60 * time.Second)
	defer cancel()
	stream, err := c.cloud.Converse(ctx)
	if err != nil {
		return err
	}
	start := &edgeloopv1.ReasonRequest{
		SessionId: newSessionID(), Query: query, DeviceId: c.deviceID,
		DeviceTools: []string{"device_control"},
	}
	if err := stream.Send(&edgeloopv1.ConverseRequest{Event: &edgeloopv1.ConverseRequest_Start{Start: start}}); err != nil {
		return err
	}
	for {
		reply, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch event := reply.GetEvent().(type) {
		case *edgeloopv1.ConverseResponse_Step:
			c.printStep("step", event.Step)
		case *edgeloopv1.ConverseResponse_DeviceAction:
			action := event.DeviceAction
			c.print("device_action", action, fmt.Sprintf("%-12s runs %s %v", "DEVICE", action.GetTool(), action.GetArguments().AsMap()))
			obs := observe(action, schemas)
			c.print("observation", obs, fmt.Sprintf("%-12s %v", "OBSERVED", obs.GetObservation().AsMap()))
			if err := stream.Send(&edgeloopv1.ConverseRequest{Event: &edgeloopv1.ConverseRequest_Observation{Observation: obs}}); err != nil {
				return err
			}
		case *edgeloopv1.ConverseResponse_Receipt:
			r := event.Receipt
			c.print("receipt", r, fmt.Sprintf("%-12s %s (%d tool calls)", "RECEIPT", r.GetReceiptId(), len(r.GetEvidence())))
			if err := stream.CloseSend(); err != nil { // half-close only after the answer
				return err
			}
		}
	}
}

func main() {
	cloud := flag.String("cloud", "127.0.0.1:50051", "the cloud's HOST:PORT")
	token := flag.String("token", os.Getenv("EDGELOOP_TOKEN"), "bearer token (when the cloud has tokens)")
	deviceID := flag.String("device-id", "go-client", "the device id (the token's device)")
	asJSON := flag.Bool("json", false, "print each message as protobuf JSON, one per line")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || ((args[0] == "reason" || args[0] == "converse") && len(args) < 2) {
		fmt.Fprintln(os.Stderr, "usage: edgeloop-client [flags] health | tools | reason QUERY | converse QUERY")
		os.Exit(2)
	}
	conn, err := grpc.Dial(*cloud, grpc.WithInsecure())
	if err != nil {
		fmt.Fprintf(os.Stderr, "edgeloop-client: %v\n", err)
		os.Exit(3)
	}
	defer conn.Close()
	c := &client{conn: conn, cloud: edgeloopv1.NewCloudReasonerServiceClient(conn),
		token: *token, deviceID: *deviceID, asJSON: *asJSON}
	query := strings.Join(args[1:], " ")
	switch args[0] {
	case "health":
		err = c.health()
	case "tools":
		err = c.tools()
	case "reason":
		err = c.reason(query)
	case "converse":
		err = c.converse(query)
	default:
		fmt.Fprintf(os.Stderr, "edgeloop-client: unknown command %q\n", args[0])
		os.Exit(2)
	}
	if err != nil {
		if s, ok := status.FromError(err); ok {
			fmt.Fprintf(os.Stderr, "edgeloop-client: %s: %s\n", s.Code(), s.Message())
		} else {
			fmt.Fprintf(os.Stderr, "edgeloop-client: %v\n", err)
		}
		os.Exit(3)
	}
}
