import Foundation
import Logging
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The file that keeps the states last announced across restarts, on its own.
@Suite struct AnnouncedStatesTests {
    let logger = AgentLogger(logger: Logger(label: "announced"), redactor: SecretRedactor())

    @Test func whatIsSavedIsReadBackForTheProbesStillConfigured() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // A folder not made yet: the first save makes it.
        let store = AnnouncedStates(stateDirectory: dir.path + "/state", logger: logger)
        #expect(store.load(probes: ["p"]).isEmpty, "no file yet")
        store.save(
            .init(
                generation: 2,
                entries: ["p/a": .init(probe: "p", state: .critical), "gone/b": .init(probe: "gone", state: .warning)]))
        // An older snapshot taken before it, written after it, changes nothing.
        store.save(.init(generation: 1, entries: [:]))
        #expect(store.load(probes: ["p"]) == ["p/a": .init(probe: "p", state: .critical)])
        #expect(store.load(probes: ["p", "gone"]).count == 2)
        #expect(!FileManager.default.fileExists(atPath: store.path + ".new"), "no temporary file left")
    }

    @Test func aDamagedFileIsReadAsNothingAndReplacedByTheNextSave() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let store = AnnouncedStates(stateDirectory: dir.path, logger: logger)
        for damaged in [
            "{\"checks\": {\"p/a\": ", "[]", "{\"checks\": {\"p/a\": {\"probe\": \"p\", \"state\": \"on fire\"}}}",
        ] {
            try damaged.write(toFile: store.path, atomically: true, encoding: .utf8)
            #expect(store.load(probes: ["p"]).isEmpty, "\(damaged)")
        }
        store.save(.init(generation: 1, entries: ["p/a": .init(probe: "p", state: .unknown)]))
        #expect(store.load(probes: ["p"]) == ["p/a": .init(probe: "p", state: .unknown)])
    }
}
