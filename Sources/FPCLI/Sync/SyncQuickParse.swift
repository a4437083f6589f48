extension Sync {
    /// `fprint sync`'s usual arguments read without ArgumentParser, whose
    /// reflection of the command (a first-time search of the binary's ~9,900
    /// protocol conformances for each type it casts) was ~1.2 ms of a no-op
    /// sync's ~13.5 ms (docs/performance.md). Only the plainest spelling is
    /// taken: each name at most once, `--name value` with a value that does
    /// not begin with `-`, `--batch-size` in decimal digits. Anything else
    /// answers nil and goes to ArgumentParser, which words the mistakes
    /// (`--push-only --pull-only`, `--batch-size 0`) and the help.
    /// `DirectSyncParseTests` holds both readings equal, every property
    /// included: a property added to `Sync` and not set here fails them.
    static func quickParse(_ arguments: [String]) -> Sync? {
        var pushOnly = false, pullOnly = false, dryRun = false, quiet = false, insecure = false
        var token: String?, gateway: String?, db: String?, config: String?, batchSize = defaultBatchSize
        var seen: [String] = []
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard !seen.contains(name) else { return nil }
            seen.append(name)
            switch name {
            case "--push-only": pushOnly = true
            case "--pull-only": pullOnly = true
            case "--dry-run": dryRun = true
            case "--quiet": quiet = true
            case "--insecure": insecure = true
            case "--token", "--gateway", "--db", "--config", "--batch-size":
                guard let value = rest.popFirst(), !value.hasPrefix("-") else { return nil }
                switch name {
                case "--token": token = value
                case "--gateway": gateway = value
                case "--db": db = value
                case "--config": config = value
                default:
                    guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                          let size = Int(value), size >= 1 else { return nil }
                    batchSize = size
                }
            default: return nil
            }
        }
        guard !(pushOnly && pullOnly) else { return nil }
        var sync = Sync()
        sync.pushOnly = pushOnly
        sync.pullOnly = pullOnly
        sync.dryRun = dryRun
        sync.token = token
        sync.batchSize = batchSize
        sync.quiet = quiet
        var client = GatewayClientOptions()
        client.gateway = gateway
        client.insecure = insecure
        sync.client = client
        var storeOptions = StoreOptions()
        storeOptions.db = db
        sync.storeOptions = storeOptions
        var configOptions = ConfigOptions()
        configOptions.config = config
        sync.configOptions = configOptions
        return sync
    }
}
