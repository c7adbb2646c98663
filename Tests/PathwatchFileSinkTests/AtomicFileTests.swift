import Foundation
import PathwatchJSON
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchFileSink

/// The file sink's replacement is atomic: readers hammering the file while it is rewritten
/// thousands of times never see a torn or partial document. These tests block (thousands of
/// fsyncs, waits for their reader threads), so they run on threads of their own: on the
/// cooperative pool they held both of a two-core machine's threads for about five seconds, and
/// every unit test of the run waited behind them.
@Suite(.onItsOwnThread) struct AtomicFileTests {
    @Test func concurrentReadersNeverSeeATornFile() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let path = dir.appendingPathComponent("status.json").path
        // Each version is a ~64 KiB document whose filler repeats its own version number, so a
        // mix of two versions is detectable, not just a parse error.
        func document(_ version: Int) -> String {
            let filler = String(repeating: "v\(version)-", count: 8_000)
            return JSONSerializer.serialize(
                .object(JSONObject([("version", .number(Double(version))), ("filler", .string(filler))])))
        }
        try AtomicFile.write(document(0), to: path)
        let writes = 2_000
        let readsPerReader = 2_500
        let readers = 2
        let failures = LockedCounter()
        let reads = LockedCounter()
        let group = DispatchGroup()
        for _ in 0..<readers {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<readsPerReader {
                    guard let data = FileManager.default.contents(atPath: path),
                        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                        let version = object["version"] as? Int, let filler = object["filler"] as? String,
                        filler == String(repeating: "v\(version)-", count: 8_000)
                    else {
                        failures.increment()
                        continue
                    }
                    reads.increment()
                }
            }
        }
        for version in 1...writes { try AtomicFile.write(document(version), to: path) }
        group.wait()
        #expect(failures.value == 0)
        #expect(reads.value == readers * readsPerReader)
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["status.json"])
    }

    /// Two writers of one path (the old and the new file sink during a reload) never share a
    /// temporary file: no write fails, and no reader sees a torn document.
    @Test func twoWritersOfOnePathNeverCollide() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let path = dir.appendingPathComponent("status.json").path
        @Sendable func document(_ writer: Int, _ version: Int) -> String {
            let filler = String(repeating: "w\(writer)v\(version)-", count: 4_000)
            return JSONSerializer.serialize(
                .object(
                    JSONObject([
                        ("writer", .number(Double(writer))), ("version", .number(Double(version))),
                        ("filler", .string(filler)),
                    ])))
        }
        try AtomicFile.write(document(0, 0), to: path)
        let writeErrors = LockedCounter()
        let torn = LockedCounter()
        let group = DispatchGroup()
        let done = LockedCounter()
        for writer in 1...2 {
            DispatchQueue.global().async(group: group) {
                for version in 1...1_500 {
                    do { try AtomicFile.write(document(writer, version), to: path) } catch { writeErrors.increment() }
                }
                done.increment()
            }
        }
        DispatchQueue.global().async(group: group) {
            while done.value < 2 {
                guard let data = FileManager.default.contents(atPath: path),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let writer = object["writer"] as? Int, let version = object["version"] as? Int,
                    (object["filler"] as? String) == String(repeating: "w\(writer)v\(version)-", count: 4_000)
                else {
                    torn.increment()
                    continue
                }
            }
        }
        group.wait()
        #expect(writeErrors.value == 0, "renames and opens of a shared temporary name fail")
        #expect(torn.value == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["status.json"])
    }

    @Test func unwritableFolderIsAClearError() {
        #expect(throws: AtomicFile.WriteError.self) {
            try AtomicFile.write("{}", to: "/nonexistent/folder/status.json")
        }
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
