import PathwatchProbeKit

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
        KernelFile.attribute(interfacePath(interface, file))
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
