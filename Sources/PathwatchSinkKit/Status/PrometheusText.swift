/// The Prometheus text exposition format 0.0.4, written into bytes: metric families, each with
/// HELP and TYPE, then its samples. A family's samples go to its own buffer as they come, and
/// the families are joined in the order they first had one. Names and label names are
/// sanitised to the format's alphabets, label values escaped; non-finite values are never
/// written.
package struct PrometheusText: Sendable {
    package enum Kind: String, Sendable {
        case gauge, counter
    }

    private struct Family: Sendable {
        var name: String
        var help: String
        var kind: Kind
        var samples: [UInt8] = []
        let nameBytes: [UInt8]
    }

    private var families: [Family] = []
    private var places: [String: Int] = [:]
    /// The sample buffers of the rendering before `clear`, by family name, each taken by its
    /// family again.
    private var spare: [String: [UInt8]] = [:]

    package init() {}

    /// Empties the text for a new rendering of the same source, keeping its families' sample
    /// buffers and their room for the same families: a document of hundreds of kilobytes,
    /// rendered at each report, then neither grows a buffer by doubling nor maps and faults in
    /// fresh pages for one (the heap maps every large buffer on its own).
    package mutating func clear() {
        var buffers: [String: [UInt8]] = [:]
        for index in families.indices {
            var samples: [UInt8] = []
            swap(&samples, &families[index].samples)
            buffers[families[index].name] = samples
        }
        families.removeAll(keepingCapacity: true)
        places.removeAll(keepingCapacity: true)
        spare = buffers
    }

    /// The place of family `name`, made with `help` and `kind` the first time.
    package mutating func family(_ name: String, help: @autoclosure () -> String, _ kind: Kind = .gauge) -> Int {
        if let place = places[name] { return place }
        var family = Family(name: name, help: help(), kind: kind, nameBytes: Array(name.utf8))
        if var buffer = spare.removeValue(forKey: name) {
            buffer.removeAll(keepingCapacity: true)
            family.samples = buffer
        }
        families.append(family)
        places[name] = families.count - 1
        return families.count - 1
    }

    /// Adds one sample to family `name` (made with `help` and `kind` the first time); `labels`
    /// are `(name, value)` pairs, their names sanitised here.
    package mutating func add(
        _ name: String, _ help: String, _ kind: Kind = .gauge, labels: [(String, String)] = [], value: Double
    ) {
        guard value.isFinite else { return }
        var rendered: [UInt8] = []
        for (index, label) in labels.enumerated() {
            rendered.append(index == 0 ? UInt8(ascii: "{") : UInt8(ascii: ","))
            Self.writeLabel(name: Self.sanitizedLabelName(label.0), value: label.1, into: &rendered)
        }
        if !labels.isEmpty { rendered.append(UInt8(ascii: "}")) }
        add(to: family(name, help: help, kind), labels: rendered, value: value)
    }

    /// Adds one sample to the family at `place`; `labels` is the rendered `{…}` (or nothing).
    /// A non-finite value is left out.
    package mutating func add(to place: Int, labels: [UInt8], value: Double) {
        appendSample(to: place, labels: labels, ending: Self.space, value: value)
    }

    /// Adds one sample to the family at `place`: its name, `labels`, then `ending` (the rest of
    /// the labels, their `}` and the space before the value, already rendered), the value.
    package mutating func appendSample(to place: Int, labels: [UInt8], ending: [UInt8], value: Double) {
        guard value.isFinite else { return }
        families[place].samples.append(contentsOf: families[place].nameBytes)
        families[place].samples += labels
        families[place].samples += ending
        Self.writeNumber(value, into: &families[place].samples)
        families[place].samples.append(UInt8(ascii: "\n"))
    }

    private static let space = [UInt8(ascii: " ")]

    /// Adds sample lines to the family at `place` as they are: each written as `appendSample`
    /// writes one (its name first, a finite value, a line feed).
    package mutating func appendLines(to place: Int, _ lines: [UInt8]) {
        lines.withUnsafeBufferPointer { families[place].samples.append(contentsOf: $0) }
    }

    package var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(byteCountEstimate)
        write { out.append(contentsOf: $0) }
        return out
    }

    /// At least the length of the text (each family's HELP and TYPE lines counted generously).
    package var byteCountEstimate: Int {
        families.reduce(0) { $0 + $1.samples.count + 2 * $1.name.utf8.count + $1.help.utf8.count + 64 }
    }

    /// Hands the text to `chunk` in order, a family's lines then its samples, without joining
    /// them first: a server writes them straight into the buffer it sends.
    package func write(_ chunk: (UnsafeRawBufferPointer) -> Void) {
        for family in families where !family.samples.isEmpty {
            var head =
                "# HELP \(family.name) \(Self.escapedHelp(family.help))\n# TYPE \(family.name) \(family.kind.rawValue)\n"
            head.withUTF8 { chunk(UnsafeRawBufferPointer($0)) }
            family.samples.withUnsafeBytes(chunk)
        }
    }
}
