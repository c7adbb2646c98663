import PathwatchHTTPOut

/// The webhook's destination URL, parsed by the HTTP module that every posting sink shares.
package typealias WebhookTarget = HTTPTarget
