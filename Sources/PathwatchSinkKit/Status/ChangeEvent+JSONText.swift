import PathwatchJSON
import PathwatchProbeKit

/// The event as contract §4 writes it, for every sink that sends it as JSON: a json stdout line,
/// `/events`, the webhook's `pathwatch` format. Written straight into bytes; strings go through
/// `JSONSerializer`, so their escaping is the project's one serializer's.
extension ChangeEvent {
    /// `{"schema":1,"type":"change","id":…,"agent":…,"check":…,"from":…,"to":…,"at":…,
    /// "message":…,"path":{"status":…,"description":…}}`, compact; `"silenced":true` last when
    /// a silence covered the check.
    package var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + message.utf8.count + path.description.utf8.count)
        func member(_ key: StaticString, _ value: String) {
            out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
            JSONSerializer.writeString(value, into: &out)
        }
        member("{\"schema\":1,\"type\":\"change\",\"id\":", id)
        member(",\"agent\":", agent)
        member(",\"check\":", check)
        member(",\"from\":", from?.name ?? "unknown")
        member(",\"to\":", to.name)
        member(",\"at\":", at.rfc3339)
        member(",\"message\":", message)
        member(",\"path\":{\"status\":", path.status.rawValue)
        member(",\"description\":", path.description)
        out.append(contentsOf: (silenced ? "},\"silenced\":true}" : "}}").utf8)
        return out
    }

    package var jsonText: String { String(decoding: jsonBytes, as: UTF8.self) }
}
