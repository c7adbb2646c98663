import PathwatchProbeKit

/// JSON text that the checks of a document repeat, written once and copied after. The checks
/// of one probe come together in a document and say the same things in the same places: their
/// probe and plug-in, their metric names and label names in one order. A text is kept by its
/// place (`slot`) with the bytes written for it, and compared with the next one for that place:
/// equal texts compare cheaply, escaping a string again scans it byte by byte.
///
/// What is kept is everything written for the text, so a member name is kept with its comma,
/// line and indentation before it and its colon after: one copy instead of four appends.
/// `layout` tells apart the places that take different lead-ins (first or not, depth).
package struct RepeatedJSONStrings {
    private var kept: [(text: String, layout: Int, json: [UInt8])] = []

    /// Appends what `write` makes of `text`, or a copy of what it made for the same text and
    /// layout the last time in this slot.
    package mutating func write(
        _ text: String, slot: Int, layout: Int = 0, into out: inout [UInt8], _ write: (String, inout [UInt8]) -> Void
    ) {
        if slot < kept.count, kept[slot].layout == layout, kept[slot].text == text {
            out += kept[slot].json
            return
        }
        let start = out.count
        write(text, &out)
        let json = Array(out[start...])
        if slot < kept.count {
            kept[slot] = (text, layout, json)
        } else if slot == kept.count {
            kept.append((text, layout, json))
        }
    }
}
