export declare const CONDITION: string;
/** True when every package with sources has a build made after its last source change. */
export declare function buildIsFresh(packages?: URL): boolean;
/** Runs `packages/<pkg>/src/<entry>.ts`, or its build when that is fresh. */
export declare function runEntry(pkg: string, entry: string): Promise<void>;
