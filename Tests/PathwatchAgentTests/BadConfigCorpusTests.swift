import Foundation
import PathwatchTestSupport
import Testing

/// Every file in `Tests/Fixtures/bad-configs` is a configuration an operator (or an attacker
/// with write access to conf files) might hand the agent. `check-config`, `once` and `run` must
/// each refuse every one with exit 78 within a second of CPU time, naming the file and the JSON
/// path (or the line and column) of what is wrong — and never crash or hang.
@Suite(.onItsOwnThread) struct BadConfigCorpusTests {
    struct Case {
        var file: String
        var location: String
        var fragment: String
    }

    static let corpus = TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/bad-configs")

    static func cases() throws -> [Case] {
        let manifest = try String(contentsOf: corpus.appendingPathComponent("expected.tsv"), encoding: .utf8)
        return manifest.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Case(file: parts[0], location: parts[1], fragment: parts.count > 2 ? parts[2] : "")
        }
    }

    /// A copy of the corpus (`@HERE@` in a file is the copy's folder) with the files some cases
    /// point at: a FIFO, a 1 GiB sparse file, a
    /// secret one byte over 64 KiB, a Latin-1 secret, a regular file where a folder belongs, a
    /// link to /etc/passwd, a folder, and a link back to the corpus folder itself.
    static func prepare() throws -> URL {
        let dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-bad-configs")
        let plugins = TestEnvironment.productsDirectory.path
        for name in try FileManager.default.contentsOfDirectory(atPath: corpus.path) {
            let data = try Data(contentsOf: corpus.appendingPathComponent(name))
            // Files that are not UTF-8 on purpose are copied byte for byte.
            let text = String(validating: data, as: UTF8.self)
            // @HERE@: the copy's folder, for settings whose relative paths are not the configuration's.
            let filled = text.map {
                $0.replacingOccurrences(of: "@PLUGINS@", with: plugins).replacingOccurrences(
                    of: "@HERE@", with: dir.path)
            }
            try (filled.map { Data($0.utf8) } ?? data)
                .write(to: dir.appendingPathComponent(name))
        }
        #expect(mkfifo(dir.appendingPathComponent("a-fifo").path, 0o600) == 0)
        let big = dir.appendingPathComponent("one-gib.secret").path
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, 1 << 30) == 0)
        try Data(repeating: UInt8(ascii: "a"), count: 65 * 1024 + 1).write(
            to: dir.appendingPathComponent("just-over.secret"))
        try Data([0x63, 0x61, 0x66, 0xE9]).write(to: dir.appendingPathComponent("latin1.secret"))
        try Data("x\n".utf8).write(to: dir.appendingPathComponent("regular-file"))
        #expect(symlink("/etc/passwd", dir.appendingPathComponent("link-to-passwd").path) == 0)
        #expect(symlink(".", dir.appendingPathComponent("link-to-here").path) == 0)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("a-folder"), withIntermediateDirectories: false)
        return dir
    }

    @Test func theCorpusHasAtLeastEightyHostileFiles() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 80)
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter {
            $0.hasSuffix(".json")
        }
        #expect(Set(files) == Set(cases.map(\.file)), "every corpus file is in expected.tsv and the other way round")
    }

    /// A refusal's work is bounded in CPU time, which a loaded machine does not stretch:
    /// util-linux's `prlimit` sets RLIMIT_CPU and runs the agent in its place, and past a second
    /// of CPU the kernel ends it with SIGXCPU (a second later, SIGKILL). Reading `/dev/zero` or a
    /// 1 GiB file to its end would spend that second. Waiting on a FIFO spends none: the
    /// wall-clock bound catches a hang, and is generous, because on a busy machine starting a
    /// process alone can take longer than a second.
    static let cpuSeconds = 1
    static let hangSeconds = 30.0

    @Test(arguments: ["check-config", "once", "run"])
    func everyFileIsRefusedWithItsLocationWithinASecond(command: String) throws {
        let dir = try Self.prepare()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        var failures: [String] = []
        for c in try Self.cases() {
            let path = dir.appendingPathComponent(c.file).path
            let result = try run(
                [
                    "prlimit", "--cpu=\(Self.cpuSeconds):\(Self.cpuSeconds + 1)", "--",
                    TestEnvironment.pathwatchBinary.path, command,
                    "--config", path,
                ],
                environment: ["PATHWATCH_CORPUS_SECRET": "corpus-secret-value-0417"], timeout: Self.hangSeconds)
            let named = result.stderr.contains("\(path): \(c.location)")
            let said = c.fragment.isEmpty || result.stderr.contains(c.fragment)
            if result.timedOut || result.status != 78 || !named || !said || !result.stdout.isEmpty {
                let why =
                    result.timedOut
                    ? " (hung: killed after \(Int(Self.hangSeconds)) s)"
                    : [SIGXCPU, SIGKILL].contains(result.status) ? " (over \(Self.cpuSeconds) s of CPU)" : ""
                failures.append(
                    "\(c.file): status \(result.status)\(why), "
                        + "expected \"\(c.location)\" and \"\(c.fragment)\"; stdout \(result.stdout.count) bytes; stderr: \(result.stderr)"
                )
            }
            // The secret a case substitutes is never repeated back.
            #expect(!result.stderr.contains("corpus-secret-value-0417"), "\(c.file)")
        }
        #expect(failures.isEmpty, "\(failures.count) refused wrongly:\n\(failures.joined(separator: "\n"))")
    }
}
