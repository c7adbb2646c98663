import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit

/// Writes a result record (the layout is in `ResultFrames`): the kind and a count of
/// observations the writer fills in when the record is finished, each observation as it comes,
/// then the error and the problems.
///
/// An observation is measured first, then written through a `RecordCursor` into room made for
/// it at once: a disk check is some forty small fields.
package struct ResultRecordWriter {
    private var bytes: [UInt8] = []
    package private(set) var observationCount = 0

    package init(kind: ResultFrames.Kind, capacity: Int = 256) {
        bytes.reserveCapacity(max(capacity, 16))
        RecordCursor.append(5, to: &bytes) { cursor in
            cursor.byte(kind.rawValue)
            cursor.count(0)
        }
    }

    package mutating func observation(_ o: Observation) {
        fields(key: o.key, state: o.state, message: o.message, metrics: o.metrics, labels: o.labels)
    }

    /// A checked observation written from the plug-in's own bytes, with no Swift values made
    /// on the way (in a plug-in's child, where the record is all that becomes of it).
    package mutating func observation(_ o: CheckedObservation) {
        fields(key: o.key, state: o.state, message: o.message, metrics: o.metrics, labels: o.labels)
    }

    private mutating func fields<Text: RecordText, M: RecordMetric>(
        key: String, state: CheckState, message: Text, metrics: [M], labels: [(name: Text, value: Text)]
    ) {
        // key, state, message, the two counts; then each metric's name, value and shape (its
        // kind, help and labels), each label's texts.
        var size = key.recordSize + 1 + message.recordSize + 8
        for metric in metrics { size += metric.recordSize }
        for label in labels { size += label.name.recordSize + label.value.recordSize }
        RecordCursor.append(size, to: &bytes) { cursor in
            key.write(to: &cursor)
            cursor.byte(UInt8(truncatingIfNeeded: state.rawValue))
            message.write(to: &cursor)
            cursor.count(metrics.count)
            for metric in metrics { metric.write(to: &cursor) }
            cursor.count(labels.count)
            for label in labels {
                label.name.write(to: &cursor)
                label.value.write(to: &cursor)
            }
        }
        observationCount += 1
    }

    /// The finished record: the observation count filled in, the error, the problems and the
    /// count of observations refused whole after.
    consuming func finished(error: String?, problems: [String], refused: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: observationCount).littleEndian) { count in
            for i in 0..<4 { bytes[1 + i] = count[i] }
        }
        var size = 1 + (error?.recordSize ?? 0) + 4 + 4
        for problem in problems { size += problem.recordSize }
        RecordCursor.append(size, to: &bytes) { cursor in
            if let error {
                cursor.byte(1)
                error.write(to: &cursor)
            } else {
                cursor.byte(0)
            }
            cursor.count(problems.count)
            for problem in problems { problem.write(to: &cursor) }
            cursor.count(refused)
        }
        return bytes
    }
}

/// A text as the record holds it: a u32 byte count, then the UTF-8 bytes.
package protocol RecordText {
    /// Bytes it takes in the record, its count included.
    var recordSize: Int { get }
    func write(to cursor: inout RecordCursor)
}

extension String: RecordText {
    package var recordSize: Int { 4 + utf8.count }

    /// Copied from the string's UTF-8 storage in one piece.
    package func write(to cursor: inout RecordCursor) {
        var text = self
        text.withUTF8 { utf8 in
            cursor.count(utf8.count)
            cursor.bytes(UnsafeRawBufferPointer(utf8))
        }
    }
}

extension PluginText: RecordText {
    package var recordSize: Int { 4 + bytes.count + (truncated ? ObservationCollector.truncationMarker.utf8.count : 0) }

    package func write(to cursor: inout RecordCursor) {
        guard truncated else {
            cursor.count(bytes.count)
            cursor.bytes(bytes)
            return
        }
        var marker = ObservationCollector.truncationMarker
        marker.withUTF8 { marker in
            cursor.count(bytes.count + marker.count)
            cursor.bytes(bytes)
            cursor.bytes(UnsafeRawBufferPointer(marker))
        }
    }
}

/// A metric as the record holds it: its name, its value (f64), a byte of shape (1 a counter,
/// 2 help follows, 4 labels follow), then the help, then a byte count of labels and their texts.
/// A plain gauge, nearly every metric, takes one byte more than its name and value.
package protocol RecordMetric {
    associatedtype Name: RecordText
    var recordName: Name { get }
    var value: Double { get }
    var labels: [(name: String, value: String)] { get }
    var kind: MetricDeclaration.Kind { get }
    var help: String? { get }
}

extension RecordMetric {
    var recordSize: Int {
        var size = recordName.recordSize + 8 + 1 + (help?.recordSize ?? 0)
        if !labels.isEmpty {
            size += 1
            for label in labels { size += label.name.recordSize + label.value.recordSize }
        }
        return size
    }

    func write(to cursor: inout RecordCursor) {
        recordName.write(to: &cursor)
        cursor.number(value)
        let shape = (kind == .counter ? 1 : 0) | (help == nil ? 0 : 2) | (labels.isEmpty ? 0 : 4)
        cursor.byte(UInt8(shape))
        help?.write(to: &cursor)
        guard !labels.isEmpty else { return }
        cursor.byte(UInt8(truncatingIfNeeded: labels.count))
        for label in labels {
            label.name.write(to: &cursor)
            label.value.write(to: &cursor)
        }
    }
}

extension Metric: RecordMetric {
    package var recordName: String { name }
}

extension CheckedMetric: RecordMetric {
    package var recordName: PluginText { name }
}
