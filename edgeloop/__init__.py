"""Generated protobuf/gRPC code for the edgeloop protocol. Never edit by hand."""
