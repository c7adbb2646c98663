#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads the few sysfs files the probe needs, under a configurable root so tests can use
/// fixture trees. A missing or unreadable file is nil, never an error: sysfs attributes
/// legitimately fail (`speed` of a link without carrier reads as EINVAL).
struct Sysfs {
    let root: String

    func interfacePath(_ interface: String, _ file: String) -> String {
        "\(root)/class/net/\(interface)/\(file)"
    }

    /// A small attribute file's text, without its trailing newline.
    func text(_ interface: String, _ file: String) -> String? {
        let fd = open(interfacePath(interface, file), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        var contents = String(decoding: bytes[0..<count], as: UTF8.self)
        while contents.hasSuffix("\n") { contents.removeLast() }
        return contents
    }

    func exists(_ interface: String, _ file: String) -> Bool {
        access(interfacePath(interface, file), F_OK) == 0
    }

    /// `uevent`'s `KEY=value` lines as a dictionary.
    func uevent(_ interface: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in (text(interface, "uevent") ?? "").split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }

    /// The link speed in Mb/s when the kernel knows it (positive); nil otherwise (-1, EINVAL, absent).
    func speedMbps(_ interface: String) -> Int? {
        guard let value = text(interface, "speed"), let speed = Int(value), speed > 0 else { return nil }
        return speed
    }
}
