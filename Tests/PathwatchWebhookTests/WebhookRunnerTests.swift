import Logging
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPOut
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport
@testable import PathwatchWebhook

/// The webhook sink is run as every sink is, by the one SinkRunner around its PushDelivery:
/// paused until it starts, and what it accepted is written to its folder at a close.
@Suite(.onItsOwnThread) struct WebhookRunnerTests {
    /// The sink a config entry makes, keeping its queue under `stateDirectory`.
    static func sink(_ entry: String, stateDirectory: String) throws -> any Sink {
        let config = try SinkConfigFixture.load(entry).config.sinks[1]
        let settings = try #require(config.settings as? WebhookSinkSettings)
        return settings.makeSink(
            SinkContext(
                triggers: config.on, baseDirectory: stateDirectory, stateDirectory: stateDirectory,
                interval: .seconds(1),
                logger: AgentLogger(logger: Logger(label: "webhook"), redactor: SecretRedactor()),
                clock: SystemClock()))
    }

    @Test func theSinkIsItsDeliveryUnderTheOneRunnerAndWritesWhatItHoldsAtClose() throws {
        let state = try TestEnvironment.makeTemporaryDirectory("webhook-runner")
        let sink = try Self.sink(
            #"{"type": "webhook", "url": "http://127.0.0.1:9/hook", "on": "every"}"#, stateDirectory: state.path)
        #expect(sink is SinkRunner<PushDelivery<WebhookPush>>)
        sink.submit(.named("a"))
        // Not started: the batch waits in the runner's intake, and nothing is lost.
        #expect(sink.status().queued == 1 && sink.status().dropped == 0)
        sink.close(handingOverTo: nil)
        #expect(sink.status().dropped == 0, "the close wrote what it held to the queue folder")
        TestEnvironment.removeTemporaryDirectory(state)
    }
}
