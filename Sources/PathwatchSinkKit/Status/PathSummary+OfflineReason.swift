extension PathSummary {
    /// What a silenced check's message ends with, by why the path is unsatisfied: the DNS
    /// problem when that is why ("(DNS not answering)"), else by what lies behind the link.
    package var offlineReason: String {
        if let problem = dnsProblem { return "(\(problem))" }
        return Self.offlineReason(internet)
    }

    package static func offlineReason(_ internet: Internet?) -> String {
        switch internet {
        case .portal: "(sign-in required)"
        case .limited: "(no internet access)"
        case .unknown: "(internet access unknown)"
        case .full, nil: "(host offline)"
        }
    }

    /// Every reason a silenced check's message may end with, but the DNS problem's.
    package static let offlineReasons = ([nil, .full, .portal, .limited, .unknown] as [Internet?]).map(offlineReason)
}
