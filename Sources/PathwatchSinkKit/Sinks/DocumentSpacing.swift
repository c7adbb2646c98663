/// The least time between two documents, and the one rule for it: a document may come a tenth
/// of the spacing early. Documents follow the probes' grid, a moment early as often as late;
/// held to the whole spacing, whatever follows them could only move later against the grid,
/// until each document waited most of a spacing. A sink's pacing of deliveries (SinkPace) and
/// the status page's plots (their samples' spacing) both ask this type; the agent's pacing of
/// batches follows ticks of the grid instead (DocumentPacing).
package struct DocumentSpacing: Sendable, Equatable {
    /// The spacing, in whatever unit its caller counts in (monotonic nanoseconds for pacing,
    /// milliseconds for the plots).
    package var spacing: UInt64

    package init(_ spacing: UInt64) { self.spacing = spacing }

    /// The soonest a document may follow one made at `last` (in the spacing's unit).
    package func earliestNext(after last: UInt64) -> UInt64 {
        last &+ spacing &- spacing / 10
    }

    /// The least time from one document to the next: the spacing less its tenth.
    package var least: UInt64 { earliestNext(after: 0) }
}
