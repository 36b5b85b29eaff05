# i = first; repeat hops times: i = chain[i] & mask
        LDP  R1, chain
        LDP  R2, mask
        LDP  R3, hops
        LDP  R4, first
loop:   SHL  R5, R4, 2
        IADD R5, R1, R5
        LD   R4, [R5]
        AND  R4, R4, R2
        ISUB R3, R3, 1
        ISETP.GT P0, R3, 0
@P0     BRA  loop
        LDP  R6, out
        ST   [R6], R4
        EXIT
