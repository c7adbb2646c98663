import PathwatchAgent
extension AlertmanagerFormat {
    /// Removes `alerts.json`, where versions before this one saved their firing set in the queue
    /// folder. Nothing reads it any more, and leaving it would be worse than useless: an older
    /// agent started again on this folder would re-fire whatever it last held, long resolved by
    /// then. Called while the sink holds the folder's lock.
    static func removeFileOfOlderVersions(in folder: String) {
        unlink(folder + "/alerts.json")
    }
}
