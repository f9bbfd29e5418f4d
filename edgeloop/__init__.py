"""The edgeloop protocol for Python.

``edgeloop.v1`` is generated from ``proto/`` (never edited by hand: ``python3.11 dev.py
gen``); ``edgeloop.transport`` is the hand-written gRPC plumbing the device, the memory
sync and the cloud share.
"""
