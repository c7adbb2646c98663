/// A report as the queue keeps it since 0.2.0 (record kind 2): each series named by a number
/// its segment defined earlier, and its value (`SampleValue`); the report's time is the
/// record's. Prometheus's write-ahead log does the same: a series' labels once, then a
/// reference, a time and a value.
///
///     body        = flags:u8  payload          flags bit 0: payload is snappy-compressed
///     payload     = definitions  count:varint  (series:varint value){count}
///     definitions = count:varint  (series:varint labels:varint (name value){labels}){count}
///     name, value = length:varint  UTF-8
///
/// A record defines a series the first time it names it in its segment (or again, when the
/// record that did was never written); the segment's preamble (`DurableQueue.append(_:preamble:)`)
/// defines every series the agent was sending when the segment started, with the same
/// `definitions` after its own flags byte. The labels are those sent (`__name__` among them),
/// sorted by name.
enum DenseReport {
    static let kind: UInt8 = 2
    static let compressed: UInt8 = 1

    /// One series' definition: its number and its labels.
    struct Definition: Equatable {
        var series: UInt64
        var labels: [TimeSeries.Label]
    }

    /// A decoded record or preamble.
    struct Contents: Equatable {
        var definitions: [Definition] = []
        var samples: [(series: UInt64, value: Double)] = []

        static func == (a: Contents, b: Contents) -> Bool {
            a.definitions == b.definitions && a.samples.elementsEqual(b.samples) { $0 == $1 }
        }
    }

    /// A body of `contents` (a preamble: no samples), snappy-compressed when that saves an
    /// eighth or more (labels do; a report's numbers seldom).
    static func body(_ contents: Contents, preamble: Bool = false) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(contents.samples.count * 4 + contents.definitions.count * 96)
        Varint.append(UInt64(contents.definitions.count), to: &payload)
        for definition in contents.definitions {
            Varint.append(definition.series, to: &payload)
            Varint.append(UInt64(definition.labels.count), to: &payload)
            for label in definition.labels {
                appendString(label.name, to: &payload)
                appendString(label.value, to: &payload)
            }
        }
        if !preamble {
            Varint.append(UInt64(contents.samples.count), to: &payload)
            for sample in contents.samples {
                Varint.append(sample.series, to: &payload)
                SampleValue.append(sample.value, to: &payload)
            }
        }
        if payload.count >= 64, let packed = Snappy.compress(payload), packed.count <= payload.count - payload.count / 8
        {
            return [compressed] + packed
        }
        return [0] + payload
    }

    /// What `body` holds; nil when it is not a body of this layout.
    static func contents(of body: [UInt8], preamble: Bool = false) -> Contents? {
        // One reader of the layout: the delivery's (`DenseBody`), its definitions' labels made.
        guard let read = DenseBody(body, preamble: preamble) else { return nil }
        var contents = Contents()
        contents.definitions = read.definitions.map { Definition(series: $0.series, labels: read.labels($0.labels)) }
        contents.samples = read.samples
        return contents
    }

    private static func appendString(_ text: String, to out: inout [UInt8]) {
        let bytes = text.utf8
        Varint.append(UInt64(bytes.count), to: &out)
        out += bytes
    }
}
