/** A plan whose `add` steps wait for approval (`approvalTools: ["add"]`): 2 and 5 wait; 3 waits on 2, 6 on 5; 1 and 4 go on. */
export const approvalPlan = {
  steps: [
    { id: 1, tool: "echo", args: { n: 40 } },
    { id: 2, tool: "add", args: { a: "$1.n", b: 2 } },
    { id: 3, tool: "echo", args: { total: "$2" } },
    { id: 4, tool: "echo", args: { other: true } },
    { id: 5, tool: "add", args: { a: 1, b: 1 } },
    { id: 6, tool: "echo", args: { after: "$5" } },
  ],
};
