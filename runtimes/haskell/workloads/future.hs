-- | Futures: create `futures` futures, all before awaiting any; future i
-- computes (i x i) mod 1000. Then await each one and sum the values.
module Workloads.Future (mechanisms) where

import Control.Concurrent.Async (async, wait)
import Control.Exception (evaluate)

import Kit

-- | forkio: a forked thread filling an MVar. async: async is the future and
-- wait awaits it (a forked thread filling a TMVar, its exception rethrown).
mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", future (fork forkio)), ("async", future (fmap wait . async))]

-- | Given how a future starts (the action it returns awaits its value).
future :: (IO Int -> IO (IO Int)) -> Mechanism
future start params = do
  futures <- int params "futures"
  pure $ do
    awaits <- mapM (\i -> start (evaluate ((i * i) `mod` 1000))) [0 .. futures - 1]
    total <- foldStrict awaits
    pure (Outcome [("sum", total)] futures)
