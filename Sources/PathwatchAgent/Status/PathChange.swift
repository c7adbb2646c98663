/// Which probes a change of the path samples at once, instead of leaving them to their interval:
/// the phone's "retry when the connection is restored" (SPEC §7).
enum PathChange {
    /// - A change of the link (up or down, or another interface) re-checks what lies behind it:
    ///   probes flagged to sample on path changes (connectivity).
    /// - The path becoming satisfied samples every network-dependent probe, so an endpoint with a
    ///   60 s interval turns green within moments of the connection returning, not a minute.
    /// Nothing is sampled on the first path the agent learns at start: every probe starts then.
    static func probesToSample(before: PathSummary, after: PathSummary, policies: [String: ProbePolicy]) -> [String] {
        guard before.status != .unknown else { return [] }
        var ids: Set<String> = []
        if after.linkDiffers(from: before) {
            ids.formUnion(policies.filter(\.value.sampleOnPathChange).keys)
        }
        if after.status == .satisfied && before.status != .satisfied {
            ids.formUnion(policies.filter(\.value.needsNetwork).keys)
        }
        return ids.sorted()
    }
}
