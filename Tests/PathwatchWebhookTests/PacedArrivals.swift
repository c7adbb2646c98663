import Testing

/// Checks that messages a stand-in read at `times` (seconds) came at most one every `interval`.
///
/// The stand-in stamps a message when it reads it, so a message read late (the machine busy)
/// shortens the gap after it by as much as it lengthens the one before. The rate is held to
/// across all of them (nine tenths of an interval a message), and each gap only to a quarter of
/// the interval, which two messages sent together (a digest split, a pacing lost, a reminder
/// sent twice) fall under. `what` names the messages in a failure.
func expectPaced(
    _ times: [Double], every interval: Double, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    for (a, b) in zip(times, times.dropFirst()) {
        #expect(b - a >= interval * 0.25, "\(what): two \(b - a) s apart", sourceLocation: sourceLocation)
    }
    if let first = times.first, let last = times.last, times.count > 1 {
        #expect(
            last - first >= Double(times.count - 1) * interval * 0.9,
            "\(what): \(times.count) in \(last - first) s", sourceLocation: sourceLocation)
    }
}
