"""The hand-written gRPC transport every side of the project shares.

The generated protocol lives in ``edgeloop.v1``; this package holds what the device, the
memory sync and the cloud all need to speak it the same way, so none of them imports
another for plumbing::

    metadata.py     the metadata keys (authorization, x-device-id, x-trace-id,
                    retry-after-ms) and the metadata a client sends
    errors.py       the error kinds a server reports, each with its status code
    status.py       the one error -> gRPC status table, and abort_with()
    options.py      channel and server options (message size, keepalive)
    channels.py     TLS credentials and client channels
    auth.py         Principal, bearer-token auth and the interceptor that enforces it
    services.py     health checking and reflection for a server
    loop.py         an asyncio loop in a thread, for blocking code beside an async server

Nothing is imported here, so that importing one module (``metadata``, ``errors``) does
not load grpc.
"""
