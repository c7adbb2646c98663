/// How much room a buffer kept from one request for the next may hold: the request's entries
/// (`SeriesTable`) and snappy's output (`SnappyScratch`) keep theirs by the same rule.
enum KeptRoom {
    /// The most room kept after a request that took `needed` bytes: four times that, so one a
    /// little larger than the last fits, or 1 MiB; after one far larger (a backlog's request),
    /// the room goes back to what the usual request takes.
    static func atMost(_ needed: Int) -> Int { max(4 * needed, 1 << 20) }
}
