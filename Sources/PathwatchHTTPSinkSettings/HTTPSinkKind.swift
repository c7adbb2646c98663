import PathwatchSinkKit

extension HTTPSinkSettings {
    /// One address takes one listener.
    package var exclusiveClaim: SinkClaim? {
        SinkClaim(key: listen.description, field: "listen", clash: "two http sinks listen on \(listen)")
    }

    /// The listening socket and every connection it may serve at once.
    package var descriptorEstimate: Int { 1 + maxConnections }
}

extension SinkKind {
    /// The live agent: it serves what is asked when it is asked, so it takes every sample and
    /// every change, and has no `on`. Read and checked here; run by the module with its server
    /// (`SinkKind.httpServer`), which `pathwatch-cli` does not link.
    package static let http = SinkKind(
        type: "http", settings: HTTPSinkSettings.self, triggers: .fixed([.change, .every]))
}
