import PathwatchProbeKit

extension PrometheusExposition {
    /// A `/metrics` rendering kept from one scrape to the next: the text, whose buffers the next
    /// rendering writes again, and what it wrote for each check, which the next one copies
    /// while the check says the same.
    package struct Rendering: Sendable {
        package var text = PrometheusText()
        var checks: CheckTexts

        /// A rendering to keep (`keepingEachCheck`), or one made once: it writes each check's
        /// text into the same buffers, as there is no next rendering to copy them.
        package init(keepingEachCheck: Bool = true) {
            checks = CheckTexts(keepsEach: keepingEachCheck)
        }
    }

    /// What a rendering wrote for its checks, by their place in document order.
    ///
    /// At a fresh report each scrape a check's id, probe, plug-in and labels are nearly always
    /// the strings its text was written from (its record keeps them while they are unchanged):
    /// comparing them costs less than escaping them again, and its four state series, the same
    /// bytes until its state changes, are one copy. At a thousand checks, writing these again
    /// at every scrape (three escapes, the labels, four series and their reference counting a
    /// check) was nearly half of a rendering.
    struct CheckTexts: Sendable {
        /// False for a rendering made once: every check is written in the first entry.
        let keepsEach: Bool
        var entries: [CheckText] = []

        /// The entry for the check at `position` in document order, made empty if there is none.
        mutating func entry(at position: Int) -> Int {
            let index = keepsEach ? position : 0
            if index == entries.count { entries.append(CheckText()) }
            return index
        }

        /// Forgets the entries past the checks of the rendering just made (`count` of them).
        mutating func keep(_ count: Int) {
            if keepsEach, entries.count > count { entries.removeSubrange(count...) }
        }
    }

    /// One check's text, and what it was written from.
    struct CheckText: Sendable {
        var id = ""
        var probe = ""
        var plugin = ""
        var labels: [(name: String, value: String)] = []
        /// The state `stateLines` give 1; nil before they are written.
        var state: CheckState?
        /// `{check="…",probe="…",plugin="…"`: the start of the state series' labels.
        var stateLabels: [UInt8] = []
        /// The check's four `pathwatch_check_state` lines, whole.
        var stateLines: [UInt8] = []
        /// `{check="…",probe="…",<the check's labels>} `: what its metrics' samples share.
        var labelText: [UInt8] = []

        /// True when the text was written from what `check` says (its state aside).
        func describes(_ check: CheckRecord) -> Bool {
            id == check.id && probe == check.probe && plugin == check.plugin && Self.same(labels, check.labels)
        }

        private static func same(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
            guard a.count == b.count else { return false }
            // Labels a record kept are the very array the text was written from.
            let shared = a.withUnsafeBufferPointer { kept in
                b.withUnsafeBufferPointer { kept.baseAddress == $0.baseAddress }
            }
            if shared { return true }
            for index in a.indices where a[index].name != b[index].name || a[index].value != b[index].value {
                return false
            }
            return true
        }
    }
}
