import CCurlShims
import PathwatchJSON
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Checks HTTP(S) and TCP endpoints: every target of a sample in flight at once on one libcurl
/// multi handle, on the sampling thread. One check per target, keyed by its name.
final class ReachabilityProbe: Probe {
    typealias Config = ReachabilityConfig

    static let name = "reachability"
    static let version = "1.0.0"
    static let summary =
        "Checks HTTP(S) and TCP endpoints concurrently through libcurl: status, body, latency per phase, certificate expiry."
    static var flags: ProbeFlags { [.needsNetwork] }

    static let defaultMaxConcurrency = 64

    let targets: [TargetSpec]
    let maxConcurrency: Int
    let pool = TransferPool()
    private let runner: MultiRunner

    init(config: ReachabilityConfig) throws {
        targets = try Self.validate(config)
        maxConcurrency = config.maxConcurrency ?? Self.defaultMaxConcurrency
        for (index, target) in targets.enumerated() where target.tls.insecure {
            // Allowed, but never silently: the operator should see it in the agent's log.
            let line =
                "reachability: targets[\(index)] (\(target.name)): tls.insecure is set; "
                + "the server's certificate and host name are not verified\n"
            _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        }
        // Every target's options are set once now, so a target libcurl refuses fails here, at
        // configuration time, not in every sample.
        let check = try pool.take()
        for target in targets { try check.configure(for: target) }
        pool.give(check)
        pool.releaseIdle()
        runner = try MultiRunner()
    }

    static func validate(_ config: ReachabilityConfig) throws(ProbeConfigError) -> [TargetSpec] {
        if let limit = config.maxConcurrency, limit < 1 {
            throw ProbeConfigError("max_concurrency", "must be at least 1")
        }
        guard !config.targets.isEmpty else { throw ProbeConfigError("targets", "expected at least one target") }
        var seen: [String: Int] = [:]
        var specs: [TargetSpec] = []
        specs.reserveCapacity(config.targets.count)
        var sharing = TargetSharing()
        for (index, target) in config.targets.enumerated() {
            let path = JSONPath([.key("targets"), .index(index)])
            if let first = seen[target.name] {
                throw ProbeConfigError(
                    path: path.appending("name"),
                    message: "duplicate target name \"\(target.name)\" (also targets[\(first)])")
            }
            seen[target.name] = index
            specs.append(try TargetSpec(target, at: path, sharing: &sharing))
        }
        return specs
    }

    func sample(into emitter: Emitter) throws {
        var results: [TransferResult]
        let budget = SampleBudget.current
        // The handles serve this round only: between rounds the probe holds its targets alone.
        defer { pool.releaseIdle() }
        do {
            results = try runner.run(count: targets.count, maxConcurrency: maxConcurrency, pool: pool) {
                index, transfer in
                guard let limit = budget.limit(for: targets[index].timeout) else { return false }
                try transfer.configure(for: targets[index], timeLimit: limit)
                return true
            }
            try inspectRejectedCertificates(&results, budget: budget)
        } catch let error as CurlSetupError {
            throw ProbeSampleError(error.description)
        }
        let now = Self.currentTime()
        for (target, result) in zip(targets, results) {
            emitter.emit(Verdict(target: target, result: result, now: now).observation)
        }
    }

    /// For certificates refused as expired or not yet valid, reads their dates over a second,
    /// unverified handshake so the message can say "expired 3 days ago". Nothing is requested.
    private func inspectRejectedCertificates(_ results: inout [TransferResult], budget: SampleBudget) throws {
        var inspections: [(index: Int, url: String)] = []
        for (index, result) in results.enumerated()
        where result.code == CURLE_PEER_FAILED_VERIFICATION
            && [Verdict.certificateExpired, Verdict.certificateNotYetValid].contains(result.verifyResult)
        {
            guard let url = result.effectiveURL else { continue }
            inspections.append((index, url))
        }
        guard !inspections.isEmpty else { return }
        // Only with time left: without it the message says "expired" without saying when.
        let inspected = try runner.run(count: inspections.count, maxConcurrency: maxConcurrency, pool: pool) {
            i, transfer in
            let target = targets[inspections[i].index]
            guard let limit = budget.limit(for: target.timeout) else { return false }
            try transfer.configure(inspectingCertificateOf: target, at: inspections[i].url, timeLimit: limit)
            return true
        }
        let indices = inspections.map(\.index)
        for (index, inspection) in zip(indices, inspected) {
            results[index].certificateNotAfter = inspection.certificateNotAfter
        }
    }

    static func currentTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
