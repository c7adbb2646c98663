import PathwatchProbeKit

/// JSON strings that the checks of a document repeat, escaped once and copied after. The checks
/// of one probe come together in a document and say the same things in the same places: their
/// probe and plug-in, their metric names and label names in one order. A text is kept by its
/// place (`slot`) and compared with the next one for that place: equal texts compare cheaply,
/// escaping a string again scans it byte by byte.
struct RepeatedJSONStrings {
    private var kept: [(text: String, json: [UInt8])] = []

    /// Appends `text` as a JSON string (quotes included, then `suffix`), copying what was kept
    /// for `slot` when the text is the one kept there, else escaping it and keeping it.
    mutating func write(_ text: String, slot: Int, suffix: UInt8? = nil, into out: inout [UInt8]) {
        if slot < kept.count, kept[slot].text == text {
            out += kept[slot].json
            return
        }
        let start = out.count
        JSONSerializer.writeString(text, into: &out)
        if let suffix { out.append(suffix) }
        let json = Array(out[start...])
        if slot < kept.count {
            kept[slot] = (text, json)
        } else if slot == kept.count {
            kept.append((text, json))
        }
    }
}
