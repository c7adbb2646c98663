import Foundation
import Logging
import PathwatchJSON
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// A probe's settings held as the text its plug-in was given once the probe runs, and compared as
/// that text at a reload.
@Suite(.onItsOwnThread) struct ProbeSettingsTests {
    static let tree = try! JSONParser.parse(#"{"targets": [{"name": "a", "url": "http://127.0.0.1:1/"}], "n": 2.50}"#)

    @Test func textIsTheCompactJSONAndTheTreeComesBackFromIt() throws {
        let parsed = ProbeSettings(Self.tree)
        #expect(parsed.text == #"{"targets":[{"name":"a","url":"http://127.0.0.1:1/"}],"n":2.5}"#)
        #expect(!parsed.isKeptAsText)
        let kept = parsed.keptAsText
        #expect(kept.isKeptAsText && kept.keptAsText.isKeptAsText)
        #expect(kept.text == parsed.text)
        #expect(kept.tree == Self.tree)
        #expect(kept == parsed && parsed == kept)
    }

    @Test func settingsAreEqualWhenThePluginWouldReadTheSameBytes() throws {
        let kept = ProbeSettings(Self.tree).keptAsText
        // The same values written otherwise (spaces, a number's form): the same text.
        let respelled = try JSONParser.parse(
            #"{ "targets" : [ {"name":"a","url":"http://127.0.0.1:1/"} ], "n": 25e-1 }"#)
        #expect(ProbeSettings(respelled) == kept)
        // Members in another order: other bytes, as the tree's own comparison said too.
        let reordered = try JSONParser.parse(#"{"n": 2.5, "targets": [{"name": "a", "url": "http://127.0.0.1:1/"}]}"#)
        #expect(ProbeSettings(reordered) != kept)
        // A composed and a decomposed accent are equal Strings, but not the same bytes: the
        // plug-in would read a different setting, so it is a change.
        let composed: JSONValue = .object(JSONObject([("name", .string("caf\u{E9}"))]))
        let decomposed: JSONValue = .object(JSONObject([("name", .string("cafe\u{301}"))]))
        #expect(composed == decomposed)
        #expect(ProbeSettings(composed).keptAsText != ProbeSettings(decomposed))
        #expect(ProbeSettings(composed) == ProbeSettings(composed).keptAsText)
    }

    /// A running agent holds every probe's settings as text, after its start and after a reload,
    /// and a reload still tells an unchanged probe (kept) from a changed one (restarted), the
    /// changed one's accents included.
    @Test func aRunningAgentKeepsTextAndAReloadComparesIt() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        func config(_ second: String) -> String {
            """
            {"agent": {"interval": "1h", "plugin_dirs": ["."], "state_dir": "state"},
             "probes": [
              {"id": "same", "plugin": "testprobe", "isolation": "inline", "config": {"checks": 2, "note": "caf\u{E9}"}},
              {"id": "other", "plugin": "testprobe", "isolation": "inline", "config": {"checks": 1, "note": "\(second)"}}],
             "sinks": []}
            """
        }
        let file = try writeConfig(config("caf\u{E9}"), in: dir)
        let kinds = SinkRegistry([], whenNoneConfigured: [])
        let agent = Agent(
            config: try ConfigLoader.load(file: file.path, sinks: kinds),
            logger: AgentLogger(logger: Logger(label: "probe-settings"), redactor: SecretRedactor()))
        try agent.start()
        defer { agent.stop() }
        func heldAsText() -> Bool {
            agent.pipeline.call { p in
                p.state.loaded.config.probes.allSatisfy(\.config.isKeptAsText)
                    && p.state.probes.values.allSatisfy(\.config.config.isKeptAsText)
            }
        }
        #expect(heldAsText(), "a probe's settings are held as a tree after the start")

        // The same file again: both kept.
        #expect(
            try agent.reload(ConfigLoader.load(file: file.path, sinks: kinds))
                == "0 probes (re)started, 0 stopped, 2 kept")
        #expect(heldAsText())

        // The second probe's accent decomposed: the same String to Swift, other bytes to the plug-in.
        try writeConfig(config("cafe\u{301}"), in: dir)
        let summary = try agent.reload(ConfigLoader.load(file: file.path, sinks: kinds))
        // A restarted probe is stopped and started again.
        #expect(summary == "1 probes (re)started, 1 stopped, 1 kept")
        #expect(heldAsText(), "a probe's settings are held as a tree after the reload")
        let running = agent.pipeline.call { $0.state.probes["other"]?.config.config.text }
        #expect(running == #"{"checks":1,"note":"cafe\#u{301}"}"#)
    }
}
