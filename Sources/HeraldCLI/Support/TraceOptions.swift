import ArgumentParser
import Foundation
import HeraldSupport
import OTel
import PushProvider
import ServiceLifecycle

/// `--otlp-endpoint` and `--trace-sample-ratio`: traces exported over OTLP/HTTP (protobuf) by swift-otel. Off unless
/// an endpoint is given here or in OpenTelemetry's own `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`);
/// the other `OTEL_*` variables (sampler, headers, service name, resource attributes) apply as the specification
/// says.
struct TraceOptions: ParsableArguments {
    @Option(
        name: .customLong("otlp-endpoint"),
        help: "An OTLP/HTTP collector's base URL (http://host:4318): traces go to its /v1/traces.")
    var otlpEndpoint: String?

    @Option(
        name: .customLong("trace-sample-ratio"),
        help: "The share of new traces recorded, 0 to 1; a request that carries a traceparent keeps its own choice.")
    var sampleRatio = 1.0

    func validate() throws {
        guard (0...1).contains(sampleRatio) else {
            throw ValidationError("--trace-sample-ratio is 0 to 1 (0.01: one trace in a hundred); got \(sampleRatio)")
        }
        if let otlpEndpoint {
            guard let url = URL(string: otlpEndpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil
            else {
                throw ValidationError(
                    "--otlp-endpoint: \(otlpEndpoint) is not an http:// or https:// URL (a collector's OTLP/HTTP "
                        + "address, such as http://127.0.0.1:4318)")
            }
        }
    }

    /// Whether traces are on: an endpoint given, here or in the environment.
    var enabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        return otlpEndpoint != nil || environment["OTEL_EXPORTER_OTLP_ENDPOINT"] != nil
            || environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] != nil
    }

    /// The tracer spans go to and the service that exports them (to run beside the others, first, so it is stopped
    /// last and sends the last spans); `nil` when traces are off.
    func backend(serviceName: String) throws -> (tracer: HeraldTracer, service: any Service)? {
        guard enabled else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.resourceAttributes["service.version"] = HeraldCommand.version
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        if let otlpEndpoint {
            let base = otlpEndpoint.hasSuffix("/") ? String(otlpEndpoint.dropLast()) : otlpEndpoint
            configuration.traces.otlpExporter.endpoint = base + "/v1/traces"
        }
        if let sampler = OTel.Configuration.TracesConfiguration.SamplerConfiguration.parentBasedTraceIDRatio(
            ratio: sampleRatio)
        {
            configuration.traces.sampler = sampler
        }
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        return (HeraldTracer(backend.factory), backend.service)
    }
}
