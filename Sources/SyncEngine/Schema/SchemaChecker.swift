import SyncProtocol

/// The semantic checks of a decoded schema; each failure names its collection and field.
struct SchemaChecker {
    let schema: Schema

    func check() throws {
        guard schema.version >= 1, (1...schema.version).contains(schema.oldestSupportedVersion) else {
            throw SchemaError(collection: nil, field: nil, reason: "version must be >= 1 and oldestSupportedVersion within 1...version")
        }
        for (name, collection) in schema.collections.sorted(by: { $0.key < $1.key }) {
            guard DeviceIdentifier.isValid(name) else {
                throw SchemaError(collection: name, field: nil, reason: "collection names use [A-Za-z0-9._:-]")
            }
            try check(collection, name: name)
        }
    }

    private func check(_ collection: CollectionSchema, name: String) throws {
        func fail(_ field: String?, _ reason: String) -> SchemaError {
            SchemaError(collection: name, field: field, reason: reason)
        }
        guard !collection.writeRoles.isEmpty else { throw fail(nil, "writeRoles must not be empty") }
        guard (1...schema.version).contains(collection.since) else { throw fail(nil, "since must be within 1...\(schema.version)") }
        for (field, spec) in collection.fields.sorted(by: { $0.key < $1.key }) {
            if let reason = problem(in: spec, path: field) { throw fail(reason.path, reason.reason) }
        }
        if let lock = collection.lock {
            guard let spec = collection.fields[lock.field] else { throw fail(lock.field, "the lock rule names an unknown field") }
            if let value = lock.values.first(where: { !(spec.values?.contains($0) ?? true) }) {
                throw fail(lock.field, "lock value \"\(value)\" is not in the field's enum")
            }
        }
        var stepStarts: Set<Int> = []
        for step in collection.migrations {
            guard step.to == step.from + 1, step.from >= 1, step.to <= schema.version, stepStarts.insert(step.from).inserted else {
                throw fail(nil, "migration \(step.from)->\(step.to) must be one unique version step within 1...\(schema.version)")
            }
            for field in step.within.keys.sorted() {
                guard case .object = collection.fields[field]?.type else {
                    throw fail(field, "migration \(step.from)->\(step.to) rewrites members of a field that is not an object")
                }
            }
        }
    }

    /// The first problem of a field declaration (recursing into items and properties).
    private func problem(in spec: FieldSpec, path: String) -> ValueProblem? {
        func fail(_ reason: String) -> ValueProblem { ValueProblem(path: path, reason: reason) }
        if spec.values != nil, spec.type != .string { return fail("enum is only allowed on string fields") }
        if spec.values?.isEmpty == true { return fail("enum must not be empty") }
        if spec.writeRoles?.isEmpty == true { return fail("writeRoles must not be empty") }
        if let table = spec.precedence, let reason = precedenceProblem(table, spec: spec) { return fail(reason) }
        if let transitions = spec.transitions, let reason = transitionProblem(transitions, spec: spec) { return fail(reason) }
        if let value = spec.defaultValue, let problem = spec.problem(with: value, path: path, allowNull: false) {
            return fail("default \(problem.reason)")
        }
        switch spec.type {
        case .array(let items?): return problem(in: items, path: path)
        case .object(let properties?):
            for (name, property) in properties.sorted(by: { $0.key < $1.key }) {
                if let problem = problem(in: property, path: "\(path).\(name)") { return problem }
            }
        default: break
        }
        return nil
    }

    private func precedenceProblem(_ table: [String], spec: FieldSpec) -> String? {
        guard spec.type == .string, !table.isEmpty, Set(table).count == table.count else {
            return "precedence must be a non-empty list of distinct strings on a string field"
        }
        let unknown = table.first { !(spec.values?.contains($0) ?? true) }
        return unknown.map { "precedence value \"\($0)\" is not in the field's enum" }
    }

    private func transitionProblem(_ transitions: [String: [String]], spec: FieldSpec) -> String? {
        guard let values = spec.values else { return "transitions need an enum" }
        for (from, targets) in transitions.sorted(by: { $0.key < $1.key }) {
            if !values.contains(from) { return "transition from unknown value \"\(from)\"" }
            if let target = targets.first(where: { !values.contains($0) }) { return "transition to unknown value \"\(target)\"" }
        }
        return nil
    }
}
