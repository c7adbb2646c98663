/// The status document's `probes` array (SPEC §3): how the agent itself is doing with each
/// probe's plug-in — isolation, the child's pid, restarts, the last error and duration.
extension ProbeHealth {
    func json(id: String, plugin: String, isolation: Isolation, lastSampleAt: WallTime?) -> JSONValue {
        var object = JSONObject()
        object["id"] = .string(id)
        object["plugin"] = .string(plugin)
        object["isolation"] = .string(isolation.rawValue)
        object["state"] = .string(state.rawValue)
        object["restarts"] = .number(Double(restarts))
        object["pid"] = pid.map { .number(Double($0)) } ?? .null
        object["last_sample_at"] = lastSampleAt.map { .string($0.rfc3339) } ?? .null
        object["last_duration_ms"] = lastDurationMilliseconds.map { .number(($0 * 1000).rounded() / 1000) } ?? .null
        object["last_error"] = lastError.map { .string($0) } ?? .null
        return .object(object)
    }
}
