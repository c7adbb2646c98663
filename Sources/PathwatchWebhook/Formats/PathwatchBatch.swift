/// `pathwatch` requests: with `max_batch` 1 (the default), each payload's body as it was queued,
/// one object per request; above 1, a JSON array of those objects in queue order, always an
/// array (of one when only one waits), so a receiver reads one shape. The bodies are joined as
/// they are, without parsing: each is one JSON value the serializer wrote.
struct PathwatchBatch: BatchShape {
    let asArray: Bool

    func request(for run: ArraySlice<QueuedPayload>) -> (body: [UInt8], taken: Int) {
        guard asArray else { return (run.first?.body ?? [], min(run.count, 1)) }
        var body: [UInt8] = [UInt8(ascii: "[")]
        body.reserveCapacity(run.reduce(2) { $0 + $1.body.count + 1 })
        for (index, payload) in zip(run.indices, run) {
            if index != run.startIndex { body.append(UInt8(ascii: ",")) }
            body += payload.body
        }
        body.append(UInt8(ascii: "]"))
        return (body, run.count)
    }
}
