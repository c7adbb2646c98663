import CCurlShims

/// Runs a batch of transfers on one libcurl multi handle, on the calling thread: at most
/// `maxConcurrency` in flight, the next one started as soon as one finishes.
///
/// Concurrency is limited here rather than with CURLMOPT_MAX_TOTAL_CONNECTIONS because libcurl
/// queues the surplus transfers with their clocks already running, which would bill the wait
/// to the endpoint's latency and eat into its timeout.
final class MultiRunner {
    private let multi: UnsafeMutableRawPointer
    /// How long one curl_multi_poll may sleep; libcurl wakes earlier for its own timers.
    static let pollMilliseconds: Int32 = 1000

    init() throws {
        guard curlGlobalInit == CURLE_OK, let multi = pw_curl_multi_init() else {
            throw CurlSetupError(description: "libcurl cannot create a multi handle")
        }
        self.multi = multi
    }

    /// Runs `count` transfers once, each on a handle from `pool` that `configure` sets up for its
    /// index, and returns their results in index order. Handles go back to the pool as soon as
    /// their transfer is done. A transfer whose `configure` returns false (no time left before
    /// the sample's deadline) is not started: its result is a timeout marked `notStarted`.
    func run(
        count: Int, maxConcurrency: Int, pool: TransferPool, configure: (Int, Transfer) throws -> Bool
    ) throws -> [TransferResult] {
        var results = [TransferResult?](repeating: nil, count: count)
        var inFlight: [UnsafeMutableRawPointer: (index: Int, transfer: Transfer)] = [:]
        var next = 0

        func startMore() throws {
            while inFlight.count < maxConcurrency, next < count {
                let transfer = try pool.take()
                let start: Bool
                do {
                    start = try configure(next, transfer)
                } catch {
                    pool.give(transfer)
                    throw error
                }
                guard start else {
                    pool.give(transfer)
                    var skipped = TransferResult(code: CURLE_OPERATION_TIMEDOUT)
                    skipped.notStarted = true
                    results[next] = skipped
                    next += 1
                    continue
                }
                let added = pw_curl_multi_add_handle(multi, transfer.handle)
                guard added == CURLM_OK else {
                    pool.give(transfer)
                    throw multiError("curl_multi_add_handle", added)
                }
                inFlight[transfer.handle] = (next, transfer)
                next += 1
            }
        }

        // A failure part-way leaves no handle behind in the multi handle for the next sample.
        defer {
            for (handle, entry) in inFlight {
                pw_curl_multi_remove_handle(multi, handle)
                pool.give(entry.transfer)
            }
        }

        try startMore()
        while !inFlight.isEmpty {
            var running: Int32 = 0
            let performed = pw_curl_multi_perform(multi, &running)
            guard performed == CURLM_OK else { throw multiError("curl_multi_perform", performed) }
            var queued: Int32 = 0
            while let message = pw_curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let entry = inFlight.removeValue(forKey: handle)
                else { continue }
                results[entry.index] = entry.transfer.result(message.pointee.data.result)
                pw_curl_multi_remove_handle(multi, handle)
                pool.give(entry.transfer)
            }
            try startMore()
            if inFlight.isEmpty { break }
            // Returns at once when a newly added handle or an expired timer needs work.
            let polled = pw_curl_multi_poll(multi, nil, 0, Self.pollMilliseconds, nil)
            guard polled == CURLM_OK else { throw multiError("curl_multi_poll", polled) }
        }
        return results.map { $0 ?? TransferResult(code: CURLE_FAILED_INIT) }
    }

    private func multiError(_ call: String, _ code: CURLMcode) -> CurlSetupError {
        CurlSetupError(description: "\(call) failed: \(String(cString: pw_curl_multi_strerror(code)))")
    }

    deinit { pw_curl_multi_cleanup(multi) }
}
