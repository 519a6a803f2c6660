// Quick taps on one pile, counted on past three. Chrome counts a touch's
// quick taps 1, 2, 3 and then 1, 2, 3 again, where a mouse's quick clicks
// count on (4, 5, …): two quick double taps on a pile, the second sending
// the card the first uncovered, came as a third tap and a first, which
// picked that card up and put it down again, and it stayed.

const TAP_RUN_MS = 300;  // (Chrome's double-tap time on a phone: a tap later starts a run)
let last = null;  // {pile, count, at} of the last tap on a pile

// The place of this tap in its run on `pile`: `clicks` (the browser's
// count), or one more than the tap before when the browser started again
// within the run.
export function tapCount(pile, clicks) {
  const at = performance.now();
  const goesOn = last !== null && last.pile === pile && last.count >= 3 && clicks < last.count
    && at - last.at < TAP_RUN_MS;
  last = { pile, count: goesOn ? last.count + 1 : clicks, at };
  return last.count;
}
