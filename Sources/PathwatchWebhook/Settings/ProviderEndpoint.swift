/// The public endpoints of the providers that have one, taken when a sink gives no `url`
/// (each from the provider's API reference): a chat's incoming webhook, a Gotify server and a
/// template's receiver are each the operator's own, and have no default.
enum ProviderEndpoint {
    static func url(of format: WebhookSinkSettings.Format, region: String) -> String? {
        switch format {
        // Events API v2: https://developer.pagerduty.com/api-reference/368ae3d938c9e-send-an-event-to-pager-duty
        case .pagerduty: "https://events.pagerduty.com/v2/enqueue"
        // Alert API, US and EU instances: https://docs.opsgenie.com/docs/alert-api
        case .opsgenie: region == "eu" ? "https://api.eu.opsgenie.com/v2/alerts" : "https://api.opsgenie.com/v2/alerts"
        // Bot API: https://core.telegram.org/bots/api#making-requests (the method is added per request)
        case .telegram: "https://api.telegram.org"
        // Publishing as JSON to the root: https://docs.ntfy.sh/publish/#publish-as-json
        case .ntfy: "https://ntfy.sh"
        // Message API: https://pushover.net/api
        case .pushover: "https://api.pushover.net/1/messages.json"
        default: nil
        }
    }
}
