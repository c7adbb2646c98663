import CCurlShims

/// Where a response body goes as it streams in. Without `expect_body` or `expect_json` nothing
/// is kept: `expect_body_contains` is searched on the fly (`BodySearch`) and the rest dropped.
/// With them, the body is kept up to `max_body` bytes; a longer one is cut there and the
/// transfer stopped (the write callback takes less than it was given, which libcurl ends with
/// CURLE_WRITE_ERROR), so a 10 MB answer costs at most `max_body`, never its own size.
final class ResponseBody {
    let search = BodySearch()
    /// The kept body: empty unless `limit` is set.
    private(set) var kept: [UInt8] = []
    /// The most bytes kept; nil keeps none.
    private(set) var limit: Int?
    /// The body was longer than `limit` and the transfer was stopped there.
    private(set) var cut = false

    /// Starts a new response: searches for `needle`, keeps up to `limit` bytes (nil: none).
    func reset(needle: String?, keepUpTo limit: Int?) {
        search.reset(needle: needle)
        self.limit = limit
        cut = false
        release()
    }

    /// Frees the kept body once its conditions are judged: an idle pooled handle holds nothing.
    func release() { kept = [] }

    /// Takes a chunk; returns how many bytes were taken (fewer than given: stop the transfer).
    func consume(_ chunk: UnsafeRawBufferPointer) -> Int {
        search.consume(chunk)
        guard let limit else { return chunk.count }
        let room = limit - kept.count
        guard chunk.count > room else {
            kept.append(contentsOf: chunk)
            return chunk.count
        }
        kept.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk.prefix(room)))
        cut = true
        return room
    }

    /// libcurl's write callback: `userdata` is an unretained `ResponseBody` that the transfer
    /// keeps alive for as long as the handle exists.
    static let writeCallback: pw_curl_data_callback = { buffer, size, count, userdata in
        let length = size * count
        guard let buffer, let userdata else { return length }
        return Unmanaged<ResponseBody>.fromOpaque(userdata).takeUnretainedValue()
            .consume(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
