extension ServerSettings {
    /// How low and how high each setting the operator tunes may go: the one place that says
    /// so. The back-office's settings form offers these ranges, and retention never keeps less
    /// than their floors, whatever value is stored.
    public enum Limits {
        public static let maintenanceRetryAfterSeconds = 10...3600
        /// At least 30 days: a device that resends an op inside the window PROTOCOL.md promises
        /// must get the stored original answer.
        public static let opResultRetentionDays = 30...3650
        /// At least 30 days: pull cursors live 30 days, and a device must still learn of every
        /// delete it could have missed.
        public static let tombstoneRetentionDays = 30...3650
        /// At least 72 hours: PROTOCOL.md promises devices an upload session lives that long idle.
        public static let uploadSessionHours = 72...720
        /// Minutes between scheduled runs of a background job: at most a week.
        public static let jobMinutes = 1...10_080
        public static let localRetentionDays = 1...365
        /// `maxAttachmentBytes`, in whole mebibytes.
        public static let maxAttachmentMebibytes = 1...4096
        /// `maxAttachmentBytesPerRecord`, in whole mebibytes.
        public static let maxAttachmentMebibytesPerRecord = 1...65536
        public static let maxOpsPerPush = 1...1000
        public static let maxPullLimit = 10...500

        /// Bytes in a mebibyte, the unit attachment limits are chosen in.
        public static let mebibyte = 1_048_576
    }
}
