"""The device side: an INT8 ONNX router, real local tools and the edge agent loop."""
