"""A real OTLP/HTTP logs receiver on 127.0.0.1 for the tests of genevals.output.otel: each
ExportLogsServiceRequest decoded with opentelemetry-proto, as a backend would decode it."""
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse


def _value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


class Receiver:
    """An OTLP/HTTP logs endpoint on 127.0.0.1 answering ``status`` after ``delay`` seconds; ``records`` holds
    each log record it decoded (event name, trace and span ids in hex, attributes), ``headers`` each request's."""

    def __init__(self, status=200, delay=0.0):
        self.records, self.headers, self.paths = [], [], []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                time.sleep(delay)
                receiver.headers.append(dict(self.headers))
                receiver.paths.append(self.path)
                if status == 200:
                    request = ExportLogsServiceRequest()
                    request.ParseFromString(body)
                    for resource_logs in request.resource_logs:
                        resource = {a.key: _value(a.value) for a in resource_logs.resource.attributes}
                        for scope in resource_logs.scope_logs:
                            for r in scope.log_records:
                                receiver.records.append({
                                    "event": r.event_name, "trace_id": r.trace_id.hex(), "span_id": r.span_id.hex(),
                                    "attributes": {a.key: _value(a.value) for a in r.attributes},
                                    "resource": resource, "scope": scope.scope.name})
                reply = ExportLogsServiceResponse().SerializeToString() if status == 200 else b"refused"
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/x-protobuf")
                    self.send_header("Content-Length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)
                except (BrokenPipeError, ConnectionResetError):  # a client that gave up waiting
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
