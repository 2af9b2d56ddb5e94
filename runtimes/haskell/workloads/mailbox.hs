{-# LANGUAGE BangPatterns #-}
-- | Mailbox: a sender unit sends `messages` messages, the payloads
-- 1..`messages` in order, to a receiver unit's mailbox (a queue). The receiver
-- takes exactly `messages` messages, counting and summing them, and hands its
-- totals back to the caller.
module Workloads.Mailbox (mechanisms) where

import Control.Monad (forM_)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", mailbox forkio), ("stm", mailbox stm)]

-- | Takes `messages` messages: (count, sum).
receive :: Int -> Queue Int -> IO (Int, Int)
receive messages q = loop 0 0
  where
    loop !count !total
      | count == messages = pure (count, total)
      | otherwise = pop q >>= \v -> loop (count + 1) (total + v)

mailbox :: Prims -> Mechanism
mailbox prims params = do
  messages <- int params "messages"
  pure $ do
    q <- newQueue prims
    sender <- fork prims (forM_ [1 .. messages] (push q))
    receiver <- fork prims (receive messages q)
    sender
    (count, total) <- receiver
    pure (Outcome [("count", count), ("sum", total)] 2)
