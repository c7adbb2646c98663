import PathwatchProbeKit

extension ChangeEvent {
    /// `json` as compact JSON text, written straight into bytes: the same text, to the byte,
    /// as `JSONSerializer.serialize(json)`, without building the tree of ten members and a
    /// nested object first. A json stdout sink writes one of these between a change and its line.
    public var jsonText: String {
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
        out.append(contentsOf: "}}".utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
