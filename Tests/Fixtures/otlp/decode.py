#!/usr/bin/env python3
"""Reads an OTLP/HTTP metrics request body (protobuf, ExportMetricsServiceRequest) from the file
named (or stdin) and prints it as JSON, decoded by the opentelemetry-proto package: an implementation independent of
Pathwatch's encoder. Field names are protobuf's own (snake_case), 64-bit integers as strings
(protobuf's JSON mapping), defaults included."""
import sys

from google.protobuf.json_format import MessageToJson
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

request = ExportMetricsServiceRequest()
with open(sys.argv[1], "rb") if len(sys.argv) > 1 else sys.stdin.buffer as body:
    request.ParseFromString(body.read())
print(MessageToJson(request, preserving_proto_field_name=True, always_print_fields_with_no_presence=True))
