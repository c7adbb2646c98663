import Foundation
import PathwatchTestSupport

/// A scratch `/proc/net/dev` and `/sys/class/net` that a test rewrites between samples, to play
/// counters, re-created interfaces and link speeds through the real procfs source.
final class FakeKernelFiles {
    struct Interface {
        var name: String
        var index: Int
        var rxBytes: UInt64 = 0
        var rxPackets: UInt64 = 0
        var txBytes: UInt64 = 0
        var txPackets: UInt64 = 0
        var rxErrors: UInt64 = 0
        var txDropped: UInt64 = 0
        /// The sysfs `speed` text; nil for no file (as for a link without one).
        var speed: String? = nil
    }

    let root: URL
    var procfsPath: String { root.appendingPathComponent("dev").path }
    var sysfsPath: String { root.appendingPathComponent("sys").path }

    init() throws { root = try TestEnvironment.makeTemporaryDirectory("pathwatch-bandwidth") }

    deinit { TestEnvironment.removeTemporaryDirectory(root) }

    func write(_ interfaces: [Interface]) throws {
        var text = """
            Inter-|   Receive                                                |  Transmit
             face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed

            """
        let sys = URL(fileURLWithPath: sysfsPath)
        try? FileManager.default.removeItem(at: sys)
        for i in interfaces {
            let name = String(repeating: " ", count: max(0, 6 - i.name.count)) + i.name
            text +=
                "\(name): \(i.rxBytes) \(i.rxPackets) \(i.rxErrors) 0 0 0 0 0 \(i.txBytes) \(i.txPackets) 0 \(i.txDropped) 0 0 0 0\n"
            let dir = sys.appendingPathComponent(i.name)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try "\(i.index)\n".write(to: dir.appendingPathComponent("ifindex"), atomically: true, encoding: .utf8)
            if let speed = i.speed {
                try "\(speed)\n".write(to: dir.appendingPathComponent("speed"), atomically: true, encoding: .utf8)
            }
        }
        try text.write(toFile: procfsPath, atomically: true, encoding: .utf8)
    }
}
