  ADD r1, r2
  MOV r300, 1
  LDP r1, nope
  BRA missing
label:
label:
  EXIT
