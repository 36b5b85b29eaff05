# y2[i] = y[i] + add
        S2R  R0, SR_GLOBAL_TID_X
        S2R  R1, SR_NTID_X
        S2R  R2, SR_NCTAID_X
        IMUL R1, R1, R2
        LDP  R2, n
        LDP  R3, y
        LDP  R4, y2
        LDP  R5, add
        SHL  R6, R0, 2               # byte offset, advanced by the stride in bytes
        SHL  R7, R1, 2
        SHL  R8, R2, 2               # end offset
loop:   USETP.GE P0, R6, R8
@P0     EXIT
        IADD R9, R3, R6
        LD   R10, [R9]
        IADD R10, R10, R5
        IADD R9, R4, R6
        ST   [R9], R10
        IADD R6, R6, R7
        BRA  loop
