import Foundation

/// Builds the C fixture plug-ins in `Tests/Fixtures/plugins` with cc, against the ABI header
/// alone, the way an out-of-tree author would.
public enum FixturePlugins {
    public static var sourceDirectory: URL {
        TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/plugins")
    }

    /// Compiles `source` (a file in the fixtures folder) into `directory/lib<name>.so`.
    @discardableResult
    public static func build(_ source: String, as name: String, into directory: URL, defines: [String] = []) throws
        -> URL
    {
        let output = directory.appendingPathComponent("lib\(name).so")
        let flags = try run(["pkg-config", "--cflags", "--libs", "json-c"]).stdout
            .split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }.filter {
                !$0.isEmpty
            }
        let argv =
            ["cc", "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-I", TestEnvironment.probeHeaderDirectory.path]
            + defines.map { "-D\($0)" }
            + [sourceDirectory.appendingPathComponent(source).path, "-o", output.path] + flags + ["-lm"]
        let result = try run(argv, timeout: 120)
        guard result.status == 0 else { throw TestFailure("cc failed for \(source): \(result.stderr)") }
        return output
    }

    /// Compiles `source`, a Swift fixture, into `directory/lib<name>.so` with swiftc and no
    /// optimisation, as an author's debug build: the header reaches Swift through a module map
    /// written beside it, in a folder of its own under `directory`.
    @discardableResult
    public static func buildSwift(_ source: String, as name: String, into directory: URL) throws -> URL {
        let output = directory.appendingPathComponent("lib\(name).so")
        let include = directory.appendingPathComponent("\(name)-include")
        try FileManager.default.createDirectory(at: include, withIntermediateDirectories: true)
        let header = TestEnvironment.probeHeaderDirectory.appendingPathComponent("pathwatch_probe.h").path
        try "module CPathwatchProbe {\n    header \"\(header)\"\n    export *\n}\n".write(
            to: include.appendingPathComponent("module.modulemap"), atomically: true, encoding: .utf8)
        let argv = [
            "swiftc", "-emit-library", "-Onone", "-parse-as-library", "-swift-version", "6",
            "-module-name", "\(name)_fixture", "-I", include.path, "-module-cache-path",
            include.appendingPathComponent("cache").path,
            sourceDirectory.appendingPathComponent(source).path, "-o", output.path,
        ]
        let result = try run(argv, timeout: 300)
        guard result.status == 0 else { throw TestFailure("swiftc failed for \(source): \(result.stderr)") }
        return output
    }

    /// A private folder (mode 0755) holding the standard test probe as `libtestprobe.so`.
    public static func folderWithTestProbe() throws -> URL {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        chmod(dir.path, 0o755)
        try build("test_probe.c", as: "testprobe", into: dir)
        return dir
    }
}

/// Writes a config file into `directory` and returns its path.
@discardableResult
public func writeConfig(_ text: String, in directory: URL, name: String = "config.json") throws -> URL {
    let url = directory.appendingPathComponent(name)
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
}
