import FPCLI

// All wiring lives in FPCLI so tests can run the same command tree.
await Fprint.main()
