import Foundation
import PathwatchSinks
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent

/// conf.d fragments and the lookup of the main file (contract §1), on real files in a temporary
/// folder: fragments append in name order, and every error names the file to edit.
@Suite(.onItsOwnThread) struct ConfigFragmentTests {
    /// A folder with `config.json` and `conf.d/` holding `fragments` (name → text).
    func folder(main: String, fragments: [String: String]) throws -> URL {
        let dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-confd")
        try writeConfig(main, in: dir)
        let confd = dir.appendingPathComponent("conf.d")
        try FileManager.default.createDirectory(at: confd, withIntermediateDirectories: false)
        for (name, text) in fragments { try writeConfig(text, in: confd, name: name) }
        return dir
    }

    func load(_ dir: URL) throws(ConfigError) -> LoadedConfig {
        try ConfigLoader.load(file: dir.appendingPathComponent("config.json").path, sinks: .standard)
    }

    func error(_ dir: URL) -> ConfigError? {
        do {
            _ = try load(dir)
            return nil
        } catch {
            return error
        }
    }

    let main = #"{"probes": [{"id": "disk", "plugin": "disk"}], "sinks": [{"type": "stdout"}]}"#

    @Test func fragmentsAppendInNameOrderAndOthersAreNotRead() throws {
        let dir = try folder(
            main: main,
            fragments: [
                "20-b.json": #"{"probes": [{"id": "b", "plugin": "x"}]}"#,
                "10-a.json":
                    #"{"probes": [{"id": "a", "plugin": "x"}], "sinks": [{"type": "stdout", "format": "json"}]}"#,
                "30-c.json.disabled": "not json",
                ".10-a.json.swp": "not json",
                "README": "not json",
            ])
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let loaded = try load(dir)
        #expect(loaded.config.probes.map(\.id) == ["disk", "a", "b"])
        #expect(
            loaded.origins.fragments
                == ["10-a.json", "20-b.json"].map { dir.appendingPathComponent("conf.d/\($0)").path })
        #expect(loaded.config.sinks.count == 2)
    }

    @Test func aMissingConfDIsNoError() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-confd")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try writeConfig(main, in: dir)
        #expect(try load(dir).config.probes.map(\.id) == ["disk"])
    }

    @Test func sinksFromAFragmentReplaceTheDefaultSinkNotTheMainFilesSinks() throws {
        let fragment = #"{"sinks": [{"type": "stdout", "format": "json"}]}"#
        let withoutSinks = try folder(main: #"{"probes": []}"#, fragments: ["a.json": fragment])
        let withSinks = try folder(main: main, fragments: ["a.json": fragment])
        defer { [withoutSinks, withSinks].forEach(TestEnvironment.removeTemporaryDirectory) }
        #expect(try load(withoutSinks).config.sinks.count == 1)
        #expect(try load(withSinks).config.sinks.count == 2)
    }

    @Test func aSyntaxErrorNamesTheFragmentWithLineAndColumn() throws {
        let dir = try folder(main: main, fragments: ["50-web.json": "{\n  \"probes\": [,]\n}"])
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let e = try #require(error(dir))
        #expect(e.file == dir.appendingPathComponent("conf.d/50-web.json").path)
        #expect(e.location == "line 2, column 14")
    }

    @Test func aBadValueNamesTheFragmentAndItsOwnJSONPath() throws {
        let dir = try folder(
            main: main,
            fragments: [
                "10-ok.json": #"{"probes": [{"id": "a", "plugin": "x"}]}"#,
                "50-web.json":
                    #"{"probes": [{"id": "b", "plugin": "x"}, {"id": "c", "plugin": "x", "interval": "1ns"}]}"#,
            ])
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let e = try #require(error(dir))
        #expect(e.file.hasSuffix("conf.d/50-web.json"))
        #expect(e.location == "probes[1].interval")
    }

    @Test func agentSettingsInAFragmentAreRefusedWithTheReason() throws {
        let dir = try folder(main: main, fragments: ["50-web.json": #"{"agent": {"interval": "5s"}}"#])
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let e = try #require(error(dir))
        #expect(e.file.hasSuffix("conf.d/50-web.json"))
        #expect(e.location == "agent")
        #expect(e.message.contains("only probes and sinks"))
    }

    @Test func aDuplicateIdAcrossFilesNamesBoth() throws {
        let dir = try folder(
            main: main,
            fragments: [
                "10-a.json": #"{"probes": [{"id": "a", "plugin": "x"}]}"#,
                "20-b.json": #"{"probes": [{"id": "b", "plugin": "x"}, {"id": "a", "plugin": "x"}]}"#,
            ])
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let e = try #require(error(dir))
        #expect(e.file.hasSuffix("conf.d/20-b.json"))
        #expect(e.location == "probes[1].id")
        #expect(e.message.contains("probes[0] in \(dir.path)/conf.d/10-a.json"))
    }

    @Test func aSinkErrorFoundOnTheHostNamesTheFragment() throws {
        let dir = try folder(
            main: main,
            fragments: [
                "10-a.json":
                    #"{"sinks": [{"type": "stdout"}, {"type": "file", "path": "/nonexistent-folder/status.json"}]}"#
            ])
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let e = try #require(error(dir))
        #expect(e.file.hasSuffix("conf.d/10-a.json"))
        #expect(e.location == "sinks[1].path")
    }

    @Test func aPluginRefusingItsConfigIsReportedAgainstTheFragment() throws {
        let plugins = try FixturePlugins.folderWithTestProbe()
        let dir = try folder(
            // Inline: this test creates the instances in its own process, which cannot serve as
            // the plug-in child (that is the pathwatch binary).
            main:
                #"{"agent": {"plugin_dirs": ["\#(plugins.path)"], "isolation": "inline"}, "probes": [{"id": "main", "plugin": "testprobe"}]}"#,
            fragments: [
                "10-a.json":
                    #"{"probes": [{"id": "extra", "plugin": "testprobe", "config": {"fail_path": "targets[0]"}}]}"#
            ])
        defer { [plugins, dir].forEach(TestEnvironment.removeTemporaryDirectory) }
        let loaded = try load(dir)
        let catalog = PluginCatalog.discover(in: loaded.pluginDirectories)
        do {
            try ProbeSetup.instantiate(loaded, catalog: catalog).forEach { $0.instance.destroy() }
            Issue.record("the plug-in accepted a config it was told to refuse")
        } catch {
            #expect(error.file.hasSuffix("conf.d/10-a.json"))
            #expect(error.location == "probes[0].config.targets[0]")
        }
    }

    @Test func lookupOrderIsFlagThenEnvironmentThenEtc() {
        let none: (String) -> String? = { _ in nil }
        let env: (String) -> String? = { $0 == "PATHWATCH_CONFIG" ? "/srv/pw.json" : nil }
        #expect(ConfigLocation.resolve(explicit: "/x.json", environment: env) == "/x.json")
        #expect(ConfigLocation.resolve(explicit: nil, environment: env) == "/srv/pw.json")
        // The current folder's config.json is never read unasked: it may be another program's.
        #expect(ConfigLocation.resolve(explicit: nil, environment: { _ in "" }) == "/etc/pathwatch/config.json")
        #expect(ConfigLocation.resolve(explicit: nil, environment: none) == "/etc/pathwatch/config.json")
    }
}
