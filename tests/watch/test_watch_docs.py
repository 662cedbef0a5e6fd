"""The how-to "Watch production traces": its two Collector configurations (its ``{.own-test}`` blocks) are valid
Collector configurations for what they claim (a ``loadbalancing`` exporter routing by trace id, checked field by
field against the exporter's and the OTLP exporters' documented settings, and pipelines naming only defined
components), the second one delivers to the port the watcher listens on, and the line the page says its sampling
example prints is what it prints."""
from __future__ import annotations

import re
import subprocess
import sys

import yaml
from support.docs_blocks import DOCS, blocks

PAGE = DOCS / "how-to" / "watch-production.md"
#: the settings of the contrib loadbalancing exporter (exporter/loadbalancingexporter/config.go) and of the OTLP
#: gRPC exporter it uses as its template (exporter/otlpexporter: the gRPC client, timeout, queue and retry settings)
LOADBALANCING = {"routing_key", "protocol", "resolver", "timeout", "sending_queue", "retry_on_failure"}
ROUTING_KEYS = {"service", "traceID", "resource", "metric", "streamID", "attributes"}
RESOLVERS = {"static", "dns", "k8s", "aws_cloud_map"}
OTLP_GRPC = {"timeout", "tls", "compression", "headers", "keepalive", "balancer_name", "auth", "retry_on_failure",
             "sending_queue", "write_buffer_size", "read_buffer_size", "wait_for_ready", "authority"}
OTLP_HTTP = {"endpoint", "traces_endpoint", "tls", "compression", "headers", "timeout", "encoding",
             "retry_on_failure", "sending_queue", "auth", "read_buffer_size", "write_buffer_size"}
_DURATION = re.compile(r"^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$")  # Go's time.ParseDuration
_HOST_PORT = re.compile(r"^[A-Za-z0-9.\-]+:([0-9]{1,5})$")


def configs() -> list[dict]:
    found = [yaml.safe_load(b.code) for b in blocks(PAGE) if b.mark == "own-test" and b.lang == "text"]
    assert len(found) == 2, "the page's two Collector configurations"
    return found


def check_pipelines(config: dict) -> None:
    assert set(config) <= {"receivers", "processors", "exporters", "connectors", "extensions", "service"}
    for name, pipeline in config["service"]["pipelines"].items():
        assert name.split("/")[0] in {"traces", "metrics", "logs"}
        assert pipeline["receivers"] and pipeline["exporters"]
        for kind in ("receivers", "processors", "exporters"):
            for component in pipeline.get(kind, []):
                assert component in (config.get(kind) or {}), f"{name}: {component} is not defined in {kind}"


def check_otlp_receiver(receiver: dict) -> None:
    assert set(receiver) == {"protocols"} and set(receiver["protocols"]) <= {"grpc", "http"}
    for protocol in receiver["protocols"].values():
        port = _HOST_PORT.match(protocol["endpoint"])
        assert port and 0 < int(port.group(1)) < 65536


def test_the_load_balancing_tier_routes_by_trace_id():
    first, _ = configs()
    check_pipelines(first)
    check_otlp_receiver(first["receivers"]["otlp"])
    lb = first["exporters"]["loadbalancing"]
    assert set(lb) <= LOADBALANCING and lb["routing_key"] == "traceID" and lb["routing_key"] in ROUTING_KEYS
    assert set(lb["protocol"]) == {"otlp"}  # the only protocol the exporter has
    otlp = lb["protocol"]["otlp"]
    assert "endpoint" not in otlp and set(otlp) <= OTLP_GRPC  # the endpoint comes from the resolver
    assert _DURATION.match(otlp["timeout"]) and otlp["tls"] == {"insecure": True}
    [(kind, resolver)] = lb["resolver"].items()  # exactly one resolver
    assert kind in RESOLVERS and kind == "static" and set(resolver) == {"hostnames"}
    assert len(resolver["hostnames"]) == 2 and all(_HOST_PORT.match(h) for h in resolver["hostnames"])
    assert first["service"]["pipelines"]["traces"]["exporters"] == ["loadbalancing"]


def test_the_watchers_tier_passes_grpc_on_to_the_watchers_http_port():
    _, second = configs()
    check_pipelines(second)
    check_otlp_receiver(second["receivers"]["otlp"])
    assert set(second["receivers"]["otlp"]["protocols"]) == {"grpc"}
    # the first tier's backends are this tier's gRPC receivers
    first, _ = configs()
    ports = {h.rsplit(":", 1)[1] for h in first["exporters"]["loadbalancing"]["resolver"]["static"]["hostnames"]}
    assert ports == {second["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"].rsplit(":", 1)[1]}
    http = second["exporters"]["otlphttp"]
    assert set(http) <= OTLP_HTTP and http["compression"] == "gzip"
    # otlphttp posts to ENDPOINT/v1/traces: the watcher's receiver, on 127.0.0.1 (where it listens) and the port
    # the page starts it on
    assert http["endpoint"] == "http://127.0.0.1:4318"
    assert "--otlp-port 4318" in PAGE.read_text(encoding="utf-8")
    assert http["retry_on_failure"] == {"enabled": True} and http["sending_queue"] == {"enabled": True}


def test_the_sampling_example_prints_what_the_page_says():
    [code] = [b.code for b in blocks(PAGE) if b.lang == "python" and not b.mark]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    said = re.search(r"It prints `([^`]+)`", PAGE.read_text(encoding="utf-8")).group(1)
    assert done.stdout.strip() == said
