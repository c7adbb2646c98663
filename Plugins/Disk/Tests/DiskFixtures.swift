import Foundation
import PathwatchProbeKit
import Synchronization

@testable import DiskProbe

/// Test inputs: fixture files beside this source, and fake statvfs results.
enum DiskFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// A filesystem of `blocks` 4 KiB blocks with `used` of them used and `reserved` kept for root.
    static func stats(
        blocks: UInt64, used: UInt64, reserved: UInt64 = 0, files: UInt64 = 1000, filesFree: UInt64 = 900,
        readOnly: Bool = false
    ) -> FilesystemStats {
        FilesystemStats(
            blockSize: 4096, fragmentSize: 4096, blocks: blocks, blocksFree: blocks - used,
            blocksAvailable: blocks - used - reserved, files: files, filesFree: filesFree, readOnly: readOnly)
    }

    static func config(_ json: String) throws -> DiskConfig {
        try ProbeExport.decodeConfig(DiskConfig.self, from: json)
    }
}

/// A statvfs stand-in: fixed answers per mount point, and mount points whose call blocks until
/// released, counting calls so tests can prove no second call starts while one is stuck.
final class FakeStatvfs: @unchecked Sendable {
    private let answers: [String: StatOutcome]
    private let blocked: Set<String>
    private let gate = DispatchSemaphore(value: 0)
    private let counts = Mutex<[String: Int]>([:])

    init(_ answers: [String: StatOutcome], blocking: Set<String> = []) {
        self.answers = answers
        self.blocked = blocking
    }

    func calls(_ mountPoint: String) -> Int { counts.withLock { $0[mountPoint] ?? 0 } }

    /// Lets every blocked call (present and future) return.
    func release() {
        for _ in 0..<64 { gate.signal() }
    }

    var function: StatFunction {
        { [self] path in
            counts.withLock { $0[path, default: 0] += 1 }
            if blocked.contains(path) { gate.wait() }
            return answers[path] ?? .failed(ENOENT)
        }
    }

    func environment(mountInfo: String) -> DiskEnvironment {
        DiskEnvironment(readMountInfo: { mountInfo }, statFunction: function)
    }
}

extension Observation {
    func metric(_ name: String) -> Double? { metrics.first { $0.name == name }?.value }
    func label(_ name: String) -> String? { labels.first { $0.name == name }?.value }
}
