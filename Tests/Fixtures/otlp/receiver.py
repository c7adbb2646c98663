#!/usr/bin/env python3
"""An OTLP/HTTP metrics receiver for Pathwatch's tests, on 127.0.0.1 and the port it is given.

Every POST's body is un-gzipped when its Content-Encoding says gzip, then read by the
opentelemetry-proto package (OpenTelemetry's own generated code, independent of Pathwatch's
encoder): as protobuf for application/x-protobuf, with protobuf's strict JSON parser for
application/json (an unknown or misspelt field is an error). A request that reads is answered
200 with an empty ExportMetricsServiceResponse, one that does not 400, as OTLP/HTTP asks.

Each request is recorded as one JSON line in --log, written and flushed before the answer:
{"content_type", "content_encoding", "status", "request"} where "request" is the decoded
request (protobuf's JSON mapping with its field names: snake_case, 64-bit integers as
strings), or {"error"} when it did not read.

With --partial "N:MESSAGE", each request that reads is answered with a partial success: N data
points rejected, for MESSAGE (in the request's own encoding).
"""
import argparse
import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict, Parse
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from google.protobuf.json_format import MessageToJson


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--partial")
    args = parser.parse_args()
    log = open(args.log, "a", encoding="utf-8")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            content_type = self.headers.get("Content-Type", "")
            encoding = self.headers.get("Content-Encoding", "")
            record = {"content_type": content_type, "content_encoding": encoding, "path": self.path}
            try:
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding:
                    raise ValueError("unknown Content-Encoding " + encoding)
                request = ExportMetricsServiceRequest()
                if content_type == "application/x-protobuf":
                    request.ParseFromString(body)
                elif content_type == "application/json":
                    Parse(body.decode("utf-8"), request)
                else:
                    raise ValueError("unknown Content-Type " + content_type)
                record["request"] = MessageToDict(request, preserving_proto_field_name=True)
                status = 200
            except Exception as error:  # noqa: BLE001: any failure to read is the sender's
                record["error"] = str(error)
                status = 400
            record["status"] = status
            log.write(json.dumps(record) + "\n")
            log.flush()
            response = ExportMetricsServiceResponse()
            if args.partial and status == 200:
                rejected, message = args.partial.split(":", 1)
                response.partial_success.rejected_data_points = int(rejected)
                response.partial_success.error_message = message
            if content_type == "application/json":
                answer = MessageToJson(response).encode("utf-8")
            else:
                answer = response.SerializeToString()
            self.send_response(status)
            self.send_header("Content-Type", content_type or "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
