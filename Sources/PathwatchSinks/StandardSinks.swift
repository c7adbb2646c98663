import PathwatchFileSink
import PathwatchHTTPSinkSettings
import PathwatchOTLP
import PathwatchRemoteWrite
import PathwatchSinkKit
import PathwatchStdoutSink
import PathwatchWebhook

extension SinkRegistry {
    /// Every sink kind the agent ships, registered in this one place: a new kind is its module
    /// and one line here. Without a `sinks` key, a configuration writes text lines to stdout.
    package static let standard = SinkRegistry(
        [.stdout, .file, .webhook, .email, .http, .remoteWrite, .otlp],
        whenNoneConfigured: [SinkConfig(type: "stdout", settings: StdoutSinkSettings(), on: [.change])])
}
