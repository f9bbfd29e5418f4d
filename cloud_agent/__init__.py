"""The cloud side: a gRPC reasoner that plans hard queries and asks the device to act."""
