import Glibc

/// The host's name (`gethostname`), or nil when it cannot be read: the default `agent.name`,
/// and OpenTelemetry's `host.name`.
package func hostName() -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
    return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
